import '@copilotkit/react-core/v2/styles.css';
import { createRoot } from 'react-dom/client';
import { CopilotKitApp } from './copilotkit-app.js';

createRoot(document.getElementById('root') as HTMLElement).render(<CopilotKitApp />);

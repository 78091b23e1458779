import { createRoot } from 'react-dom/client';
import { AgUiApp } from './ag-ui-app.js';

createRoot(document.getElementById('root') as HTMLElement).render(<AgUiApp />);

import { render } from 'preact';
import { requestAppListEarly } from './api/client.js';
import { App } from './app.js';
import './styles.css';

// The composer needs the app list: ask for it now, while the first render runs.
requestAppListEarly();
render(<App />, document.getElementById('app') as HTMLElement);

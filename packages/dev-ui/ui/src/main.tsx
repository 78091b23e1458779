import { render } from 'preact';
import { requestAppListEarly } from './api/client.js';
import { App } from './app.js';
import './styles.css';

// The composer needs the app list: take the request index.html sent (or send it now) before rendering.
requestAppListEarly();
render(<App />, document.getElementById('app') as HTMLElement);

import { render } from 'preact';
import { requestAppListEarly } from './api/client.js';
import { App } from './app.js';
import './styles.css';

/** How long the first render waits for the app list before showing "Connecting…". */
const FIRST_RENDER_WAIT_MS = 100;

// The composer needs the app list: take the request index.html sent (or send it now), and render
// once its answer is here (usually within milliseconds), so the first frame already has the message
// box enabled and the page is laid out once; a slow server gets the "Connecting…" page meanwhile.
const appList = requestAppListEarly();
const wait = new Promise((resolve) => setTimeout(resolve, FIRST_RENDER_WAIT_MS));
void Promise.race([appList, wait]).then(() => {
  render(<App />, document.getElementById('app') as HTMLElement);
});

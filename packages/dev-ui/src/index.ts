export { type AdkServerUi, type DevUiOptions, devUi } from './dev-ui.js';

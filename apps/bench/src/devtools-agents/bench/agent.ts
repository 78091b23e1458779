// The benchmark app as @google/adk-devtools' `adk api_server` expects it: a folder per app holding
// agent.ts that exports `rootAgent`. Devtools compiles and bundles this file itself.
import { googleServerApp } from '../../frameworks/server-app-google.js';

export const rootAgent = googleServerApp();

import { taskStoreSuite } from './__fixtures__/task-store-suite.js';
import { InMemoryTaskStore } from './in-memory-task-store.js';

taskStoreSuite('in-memory', async () => ({ store: new InMemoryTaskStore() }));

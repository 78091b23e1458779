import { model } from '../_shared/model.js';
import { guardedShopAgent } from './shop.js';

export const rootAgent = guardedShopAgent(model);

export {
  type BudgetGuardrailOptions,
  budgetGuardrail,
  type ModelPrice,
  USER_BUDGET_KEY,
} from './budget.js';
export {
  type InjectionGuardrailOptions,
  type InjectionScore,
  injectionGuardrail,
  injectionScore,
} from './injection.js';
export { type PromptLeakGuardrailOptions, promptLeakGuardrail, quotesInstruction } from './leak.js';
export {
  DEFAULT_MODERATION_CATEGORIES,
  type ModerationGuardrailOptions,
  modelModerationGuardrail,
  type OpenAiModerationOptions,
  openAiModerationGuardrail,
} from './moderation.js';
export {
  ALL_PII_ENTITIES,
  detectPii,
  luhn,
  type PiiAction,
  type PiiEntity,
  type PiiGuardrailOptions,
  type PiiMatch,
  piiGuardrail,
  validIban,
} from './pii.js';
export { collectStrings, mapStrings, subjectValue } from './text.js';
export { normalizeText, type UnicodeGuardrailOptions, unicodeGuardrail } from './unicode.js';

import { describe, expect, it } from 'vitest';
import { REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, REQUEST_EUC_FUNCTION_CALL_NAME } from '../index.js';

describe('@google/adk names', () => {
  it('keeps the wire names of the confirmation and credential requests under adk-js constants', () => {
    expect(REQUEST_CONFIRMATION_FUNCTION_CALL_NAME).toBe('adk_request_confirmation');
    expect(REQUEST_EUC_FUNCTION_CALL_NAME).toBe('adk_request_credential');
  });
});

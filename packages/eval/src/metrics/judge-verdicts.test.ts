import { describe, expect, it } from 'vitest';
import { majorityVote, parseRubricVerdicts, parseValidityVerdict } from '../index.js';

describe('judge verdict parsing', () => {
  it('reads final_response_match_v2 labels from JSON, fenced JSON, or loose text', () => {
    expect(parseValidityVerdict('{"is_the_agent_response_valid": "valid", "reasoning": "ok"}')).toBe(1);
    expect(parseValidityVerdict('```json\n{"is_the_agent_response_valid": ["invalid"]}\n```')).toBe(0);
    expect(parseValidityVerdict('"is_the_agent_response_valid": [valid],\n"reasoning": x')).toBe(1);
    expect(parseValidityVerdict('{"is_the_agent_response_invalid": "invalid"}')).toBe(0);
    expect(parseValidityVerdict('I think it is fine')).toBeUndefined();
  });

  it('reads rubric verdicts only when every block is complete', () => {
    const text =
      'ID: a\nProperty: Is short.\nRationale: yes it is\nVerdict: yes\n\nProperty: Is polite.\nRationale: no\nVerdict: no';
    expect(parseRubricVerdicts(text)).toEqual([
      { rubricId: 'a', property: 'Is short.', rationale: 'yes it is', score: 1 },
      { property: 'Is polite.', rationale: 'no', score: 0 },
    ]);
    expect(parseRubricVerdicts('Property: A\nRationale: r\nProperty: B\nRationale: r\nVerdict: yes')).toEqual(
      [],
    );
  });

  it('majority vote: more positives than negatives wins, a tie is negative, no votes is undefined', () => {
    expect(majorityVote([1, 0, 1])).toBe(1);
    expect(majorityVote([1, 0])).toBe(0);
    expect(majorityVote([undefined, undefined])).toBeUndefined();
    expect(majorityVote([undefined, 0])).toBe(0);
  });
});

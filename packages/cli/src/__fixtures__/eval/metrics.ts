// Custom metrics for `adk eval` tests, named in custom_config.json.
export const turns = ({ actualInvocations }: { actualInvocations: unknown[] }) => actualInvocations.length;

export default {
  name: 'mentions_city',
  evaluate: ({
    actualInvocations,
  }: {
    actualInvocations: { finalResponse?: { parts: { text?: string }[] } }[];
  }) => (actualInvocations.every((i) => /Paris|London/.test(i.finalResponse?.parts[0]?.text ?? '')) ? 1 : 0),
};

import { renderJson } from '../lib/markdown.js';

export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre
      class="json"
      dangerouslySetInnerHTML={{ __html: renderJson(value) }}
      title={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: scrollable regions must be reachable by keyboard
      tabIndex={0}
    />
  );
}

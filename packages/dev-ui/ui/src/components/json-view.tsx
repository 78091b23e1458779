import { useMemo } from 'preact/hooks';
import { renderJson } from '../lib/markdown.js';

export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre
      class="json"
      dangerouslySetInnerHTML={{ __html: useMemo(() => renderJson(value), [value]) }}
      title={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: scrollable regions must be reachable by keyboard
      tabIndex={0}
    />
  );
}

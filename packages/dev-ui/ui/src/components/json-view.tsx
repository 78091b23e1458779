import { useMemo } from 'preact/hooks';
import { escapeHtml } from '../lib/escape-html.js';
import { useRenderer } from './use-renderer.js';

export function JsonView({ value, label }: { value: unknown; label?: string }) {
  const renderer = useRenderer();
  const html = useMemo(
    () => (renderer ? renderer.renderJson(value) : escapeHtml(JSON.stringify(value, null, 2) ?? 'undefined')),
    [renderer, value],
  );
  return (
    <pre
      class="json"
      dangerouslySetInnerHTML={{ __html: html }}
      title={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: scrollable regions must be reachable by keyboard
      tabIndex={0}
    />
  );
}

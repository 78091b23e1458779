import { useMemo } from 'preact/hooks';
import { escapeHtml } from '../lib/escape-html.js';
import { useRenderer } from './use-renderer.js';

export function Markdown({ text }: { text: string }) {
  const renderer = useRenderer();
  const html = useMemo(
    () => (renderer ? renderer.renderMarkdown(text) : `<p class="plain">${escapeHtml(text)}</p>`),
    [renderer, text],
  );
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

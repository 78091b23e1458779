// Markdown and syntax colours: the page's largest dependencies (marked, highlight.js), so this module is
// its own chunk, loaded through lib/renderer.ts once the page is interactive or a message needs it.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked, type Tokens } from 'marked';
import { escapeHtml } from './escape-html.js';

// A handful of languages agents answer in; each costs a few KB, so the list stays short.
for (const [name, lang] of Object.entries({
  bash,
  css,
  javascript,
  json,
  python,
  sql,
  typescript,
  xml,
  yaml,
}))
  hljs.registerLanguage(name, lang);
hljs.registerAliases(['sh', 'shell', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });

export function highlight(code: string, language?: string): string {
  const lang = language && hljs.getLanguage(language) ? language : undefined;
  if (!lang) return escapeHtml(code);
  return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
}

const SAFE_URL = /^(https?:|mailto:|#|\/|\.\/|data:image\/(png|jpe?g|gif|webp);)/i;

// Model output is untrusted: raw HTML is shown as text, and only ordinary link targets are kept.
const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(token.text);
    },
    code(token: Tokens.Code) {
      const lang = (token.lang ?? '').split(/\s/)[0]?.toLowerCase();
      const label = lang ? `<span class="code-lang">${escapeHtml(lang)}</span>` : '';
      return `<pre class="code">${label}<code class="hljs">${highlight(token.text, lang)}</code></pre>`;
    },
    link(token: Tokens.Link) {
      const text = this.parser.parseInline(token.tokens);
      if (!SAFE_URL.test(token.href)) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
      return `<a href="${escapeHtml(token.href)}"${title} target="_blank" rel="noopener noreferrer">${text}</a>`;
    },
    image(token: Tokens.Image) {
      if (!SAFE_URL.test(token.href)) return escapeHtml(token.text);
      return `<img src="${escapeHtml(token.href)}" alt="${escapeHtml(token.text)}">`;
    },
  },
});

export function renderMarkdown(text: string): string {
  return marked.parse(text, { async: false }) as string;
}

/** Pretty JSON with syntax colours, for the inspector and tool cards. */
export function renderJson(value: unknown): string {
  return highlight(JSON.stringify(value, null, 2) ?? 'undefined', 'json');
}

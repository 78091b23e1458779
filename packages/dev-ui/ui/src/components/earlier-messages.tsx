/** Messages a long session's first render leaves out (rendering thousands at once takes seconds). */
export const MESSAGE_WINDOW = 50;
/** How many more a click on "Show earlier messages" renders. */
export const MESSAGE_WINDOW_STEP = 200;

/** The first event index to render for a conversation of `count` events just loaded. */
export function firstShownIndex(count: number): number {
  return Math.max(0, count - MESSAGE_WINDOW);
}

/** A button above the conversation that renders the events before `hidden` (their count). */
export function EarlierMessages({ hidden, onShow }: { hidden: number; onShow: () => void }) {
  if (hidden <= 0) return null;
  return (
    <div class="earlier-messages" style={{ textAlign: 'center', padding: '4px 0 8px' }}>
      <button type="button" class="btn small" onClick={onShow}>
        Show earlier messages ({hidden.toLocaleString()} more)
      </button>
    </div>
  );
}

import { Component, type ComponentType, h } from 'preact';

function shallowEqual(a: object, b: object): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka)
    if ((a as Record<string, unknown>)[k] !== (b as Record<string, unknown>)[k]) return false;
  return true;
}

/**
 * Renders `Inner` again only when a prop changed (by identity). While a reply streams, the app
 * re-renders on every chunk; the event list and the inspector must not (highlighting JSON on each
 * chunk starved the main thread on long sessions). Preact's `memo` lives in `preact/compat`.
 */
export function pure<P extends object>(Inner: ComponentType<P>): ComponentType<P> {
  return class Pure extends Component<P> {
    override shouldComponentUpdate(next: P): boolean {
      return !shallowEqual(this.props, next);
    }
    override render() {
      return h(Inner, this.props);
    }
  } as unknown as ComponentType<P>;
}

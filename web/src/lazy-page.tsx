// A component whose code is its own chunk, loaded on first use; unlike React.lazy it can be loaded ahead
// (preload) and then renders at once, without suspending: boot loads the first page's chunk while it signs in,
// so the page is not held back by a Suspense fallback (React reveals a fallback's content no sooner than 300 ms).
import type { ComponentType, JSX } from 'react';

export type LazyComponent<P> = ((props: P) => JSX.Element) & { preload(): Promise<void> };

export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>): LazyComponent<P> {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<void> | undefined;
  const preload = () => (pending ??= load().then((component) => { loaded = component; }));
  const Lazy = (props: P) => {
    // Not loaded yet: suspend until it is (the nearest Suspense boundary shows its fallback).
    if (!loaded) throw preload();
    const Component = loaded;
    return <Component {...props} />;
  };
  return Object.assign(Lazy, { preload });
}

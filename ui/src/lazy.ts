// A chunk fetched on first use: the page's first paint never waits for it, and a failed fetch
// (a dropped connection) is tried again by the next caller instead of failing for good.

export class LazyModule<T> {
  private pending: Promise<T> | null = null;

  constructor(private readonly load: () => Promise<T>) {}

  /** The module, fetched by the first call; the promise is shared, and forgotten if it fails. */
  get(): Promise<T> {
    this.pending ??= this.load().catch((err: unknown) => {
      this.pending = null;
      throw err;
    });
    return this.pending;
  }

  /** The module if a caller has asked for it, without fetching it otherwise. */
  get requested(): Promise<T> | null {
    return this.pending;
  }
}

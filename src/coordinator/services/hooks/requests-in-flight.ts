/**
 * The coordinator's requests being answered, counted at the HTTP edge, so that background
 * work that can wait (webhook deliveries) gives way to them: a delivery sent while a push is
 * answered takes the same event loop and cores as that push.
 */
export class RequestsInFlight {
  private count = 0;
  private readonly waiting = new Set<() => void>();

  constructor(private readonly clock: () => number = Date.now) {}

  get inFlight(): number {
    return this.count;
  }

  /** A request arrived; `ended` must be called once when its connection is done with it. */
  started(): void {
    this.count += 1;
  }

  ended(): void {
    this.count = Math.max(0, this.count - 1);
    if (this.count > 0) return;
    for (const resume of [...this.waiting]) resume();
  }

  /**
   * Resolves when no request is in flight, or at `deadline` (epoch milliseconds) at the latest,
   * so that work waiting here is delayed a bounded time, never starved by a busy coordinator.
   */
  async idle(deadline: number): Promise<void> {
    const left = deadline - this.clock();
    if (this.count === 0 || left <= 0) return;
    await new Promise<void>((resolve) => {
      const resume = (): void => {
        clearTimeout(timer);
        this.waiting.delete(resume);
        resolve();
      };
      const timer = setTimeout(resume, left);
      timer.unref();
      this.waiting.add(resume);
    });
  }
}

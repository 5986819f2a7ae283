/**
 * The running runner as one piece: the daemon, its metrics, the /metrics and /health server
 * on `listen_address`, and config reloads (SIGHUP via reload(), file changes via the watch).
 * A reload re-reads config.toml and applies concurrent, check_interval, shutdown_timeout,
 * log_level, listen_address and the [[runners]] entries without dropping a running job; a
 * file that does not parse is one log line and the previous config stays.
 */
import { readFile } from 'node:fs/promises';
import type { Logger } from '../../shared/logger.ts';
import { ConfigError, formatDiagnostic, parseRunnerConfig, pinoLevel, type RunnerConfig } from '../config/config.ts';
import { formatListenAddress, parseListenAddress } from '../config/listen-address.ts';
import { ConfigWatch } from '../config/watch.ts';
import { replaceRunnerToken, type TokenUpdate } from '../config/write.ts';
import { RunnerDaemon, type DaemonOptions } from './daemon.ts';
import { RunnerMetrics } from './metrics.ts';
import { StatusServer } from './status-server.ts';
import { TokenRotation, type TokenRotationOptions } from './token-rotation.ts';

export interface RunnerServiceOptions extends Omit<DaemonOptions, 'observer'> {
  /** Default: a fresh registry with process metrics. */
  metrics?: RunnerMetrics;
  /** config.toml, to reload from; without it reload() is refused. */
  configFile?: string;
  /** The text `config` was read from (changes are measured against it). */
  configText?: string;
  /** `--listen-address`: wins over the file's, on every reload too. */
  listenAddress?: string;
  /** Watch configFile for changes (default true when there is one). */
  watchConfig?: boolean;
  watchTimings?: { debounceMs?: number; pollMs?: number };
  /** Token rotation's clock and back-off (tests). */
  tokenRotation?: Pick<TokenRotationOptions, 'clock' | 'retryMs'>;
}

export type ReloadResult = 'applied' | 'unchanged' | 'failed';

export class RunnerService {
  readonly daemon: RunnerDaemon;
  readonly metrics: RunnerMetrics;
  private server: StatusServer | null = null;
  private listenSetting: string | undefined;
  private watch: ConfigWatch | null = null;
  private lastText: string | undefined;
  private reloading: Promise<unknown> = Promise.resolve();
  private rotation: TokenRotation | null = null;

  constructor(private readonly options: RunnerServiceOptions) {
    this.metrics = options.metrics ?? new RunnerMetrics();
    this.daemon = new RunnerDaemon({ ...options, config: this.withOverrides(options.config), observer: this.metrics });
    this.metrics.watch(() => this.daemon.status());
    this.lastText = options.configText;
  }

  private get logger(): Logger {
    return this.options.logger;
  }

  private withOverrides(config: RunnerConfig): RunnerConfig {
    return this.options.listenAddress === undefined ? config : { ...config, listenAddress: this.options.listenAddress };
  }

  /** Whether reload() has a file to read. */
  get reloadable(): boolean {
    return this.options.configFile !== undefined;
  }

  /** Where /metrics is served (`host:port`), if anywhere. */
  get statusAddress(): string | null {
    return this.server?.address ? formatListenAddress(this.server.address) : null;
  }

  /**
   * Listens on listen_address (rejecting with one line when it cannot), then starts polling,
   * watching and, with a config file to save new tokens in, rotating expiring tokens.
   */
  async start(): Promise<void> {
    const address = this.daemon.currentConfig.listenAddress;
    if (address) {
      this.server = await this.listen(address);
      this.listenSetting = address;
    }
    await this.daemon.start();
    const { configFile } = this.options;
    if (configFile) {
      this.rotation = new TokenRotation({
        ...this.options.tokenRotation,
        logger: this.logger,
        workers: () => this.daemon.workers,
        persist: (previous, next) => this.saveToken(configFile, previous, next),
      });
      this.rotation.schedule();
    }
    if (configFile && this.options.watchConfig !== false) {
      this.watch = new ConfigWatch({
        file: configFile,
        ...this.options.watchTimings,
        onChange: () => void this.reload('file change'),
        onWatchError: (error) => this.logger.warn(`cannot watch ${configFile} for changes (${error.message}); checking it every few seconds instead`),
      });
    }
  }

  /** Writes a rotated token, in turn with reloads; the reload its own write causes finds nothing new. */
  private saveToken(file: string, previous: { url: string; token: string }, next: TokenUpdate): Promise<void> {
    const saved = this.reloading.then(async () => {
      const text = await replaceRunnerToken(file, previous, next);
      if (text === null) throw new Error(`${file} has no [[runners]] entry with the previous token any more`);
      this.lastText = text;
    });
    this.reloading = saved.catch(() => undefined);
    return saved;
  }

  private async listen(value: string): Promise<StatusServer> {
    const address = parseListenAddress(value);
    if (!address) throw new Error(`listen_address "${value}" must be host:port (for example 127.0.0.1:9252 or :9252)`);
    const server = new StatusServer({ metrics: this.metrics, status: () => this.daemon.status() });
    const bound = await server.listen(address);
    this.logger.info(`serving /metrics and /health on ${formatListenAddress(bound)}`);
    return server;
  }

  /** Re-reads config.toml and applies it; a file change that left the text as it was is ignored. */
  reload(trigger: 'SIGHUP' | 'file change'): Promise<ReloadResult> {
    const next = this.reloading.then(() => this.reloadNow(trigger));
    this.reloading = next.catch(() => undefined);
    return next;
  }

  private async reloadNow(trigger: 'SIGHUP' | 'file change'): Promise<ReloadResult> {
    const file = this.options.configFile;
    if (!file || this.daemon.stopSignal.aborted) return 'unchanged';
    const refuse = (why: string): ReloadResult => {
      this.logger.error(`config reload (${trigger}) failed, keeping the previous configuration: ${why}`);
      return 'failed';
    };
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      return refuse(`${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
    if (trigger === 'file change' && text === this.lastText) return 'unchanged';
    this.lastText = text;
    let parsed: { config: RunnerConfig; warnings: string[] };
    try {
      parsed = parseRunnerConfig(text, file);
    } catch (error) {
      if (error instanceof ConfigError) return refuse(error.diagnostics.map((diagnostic) => formatDiagnostic(file, diagnostic)).join('; '));
      throw error;
    }
    if (parsed.config.runners.length === 0) return refuse(`${file}: no [[runners]] entry`);
    for (const warning of parsed.warnings) this.logger.warn(warning);
    await this.apply(this.withOverrides(parsed.config), trigger);
    return 'applied';
  }

  private async apply(config: RunnerConfig, trigger: string): Promise<void> {
    const previous = this.daemon.currentConfig;
    this.logger.level = pinoLevel(config.logLevel);
    if (config.logFormat !== previous.logFormat) this.logger.warn(`log_format changes take effect when the runner restarts (still ${previous.logFormat})`);
    const changes = this.daemon.applyConfig(config);
    this.rotation?.schedule();
    await this.applyListenAddress(config.listenAddress || undefined);
    this.logger.info(
      { trigger, concurrent: config.concurrent, checkInterval: config.checkInterval, logLevel: config.logLevel, added: changes.added, removed: changes.removed, changed: changes.changed },
      'configuration reloaded',
    );
  }

  private async applyListenAddress(value: string | undefined): Promise<void> {
    if (value === this.listenSetting) return;
    if (value === undefined) {
      await this.server?.close();
      this.server = null;
      this.listenSetting = undefined;
      this.logger.info('listen_address removed: no longer serving /metrics and /health');
      return;
    }
    let server: StatusServer;
    try {
      server = await this.listen(value);
    } catch (error) {
      this.logger.error(`${error instanceof Error ? error.message : String(error)}; keeping the previous listen_address`);
      return;
    }
    await this.server?.close();
    this.server = server;
    this.listenSetting = value;
  }

  /** SIGQUIT: no new jobs; resolves once the running ones finished and the server closed. */
  async stop(): Promise<void> {
    this.stopWatching();
    await this.daemon.stop();
    await this.close();
  }

  /** SIGTERM/SIGINT: see RunnerDaemon.abort. The server closes either way. */
  async abort(reason: string, timeoutMs?: number): Promise<boolean> {
    this.stopWatching();
    const clean = await this.daemon.abort(reason, timeoutMs);
    await this.close();
    return clean;
  }

  /** run-single --max-builds: resolves once the last job finished. */
  async finished(): Promise<void> {
    await this.daemon.finished();
    this.stopWatching();
    await this.close();
  }

  /** Stops watching the file and starting token resets (a reset in flight finishes; close() waits for it). */
  private stopWatching(): void {
    this.watch?.close();
    this.watch = null;
    void this.rotation?.stop();
  }

  async close(): Promise<void> {
    this.stopWatching();
    await this.rotation?.stop();
    await this.reloading;
    await this.server?.close();
    this.server = null;
  }
}

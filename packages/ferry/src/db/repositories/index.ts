// The repositories bundle. Built on the database it also runs transactions; built on a transaction
// handle every repository writes inside that transaction.
import { isDatabase, type Database, type Queryable } from '../types.ts';
import { AlertRepository } from './alerts.ts';
import { CheckpointRepository } from './checkpoints.ts';
import type { RepositoryOptions } from './common.ts';
import { CounterRepository } from './counters.ts';
import { EffectRepository, type NewEffect } from './effects.ts';
import { FeeSampleRepository } from './fee-samples.ts';
import { KvRepository } from './kv.ts';
import { LockRepository } from './locks.ts';
import { OfferRepository } from './offers.ts';
import { WebhookDeliveryRepository } from './webhook-deliveries.ts';
import { SigningSessionRepository } from './signing-sessions.ts';
import { SwapRepository, type SwapUpdate } from './swaps.ts';
import { saveTransition, type TransitionResult } from './transition.ts';

export interface Repositories {
  swaps: SwapRepository;
  effects: EffectRepository;
  checkpoints: CheckpointRepository;
  counters: CounterRepository;
  kv: KvRepository;
  signingSessions: SigningSessionRepository;
  locks: LockRepository;
  offers: OfferRepository;
  webhookDeliveries: WebhookDeliveryRepository;
  alerts: AlertRepository;
  feeSamples: FeeSampleRepository;
  /** Guarded swap update plus its effects, atomically (see saveTransition). */
  saveTransition(update: SwapUpdate, effects: readonly NewEffect[]): Promise<TransitionResult>;
}

export interface Storage extends Repositories {
  database: Database;
  /** Runs `fn` in one transaction with repositories bound to it. */
  transaction<T>(fn: (repos: Repositories, tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function bind(q: Queryable, options: RepositoryOptions): Repositories {
  const now = options.now ?? Date.now;
  return {
    swaps: new SwapRepository(q, now),
    effects: new EffectRepository(q, now),
    checkpoints: new CheckpointRepository(q, now),
    counters: new CounterRepository(q),
    kv: new KvRepository(q, now),
    signingSessions: new SigningSessionRepository(q, now),
    locks: new LockRepository(q, now),
    offers: new OfferRepository(q, now),
    webhookDeliveries: new WebhookDeliveryRepository(q, now),
    alerts: new AlertRepository(q, now),
    feeSamples: new FeeSampleRepository(q),
    saveTransition: (update, effects) => saveTransition(q, update, effects, now),
  };
}

export function createRepositories(db: Database, options?: RepositoryOptions): Storage;
export function createRepositories(tx: Queryable, options?: RepositoryOptions): Repositories;
export function createRepositories(q: Queryable, options: RepositoryOptions = {}): Repositories | Storage {
  const repos = bind(q, options);
  if (!isDatabase(q)) return repos;
  return {
    ...repos,
    database: q,
    transaction: (fn) => q.transaction((tx) => fn(bind(tx, options), tx)),
    close: () => q.close(),
  };
}

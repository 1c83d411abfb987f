// The usual way in for the service: one call from a URL to ready-to-use repositories.
import { openDatabase, type OpenOptions } from './open.ts';
import { createRepositories, type Storage } from './repositories/index.ts';
import type { RepositoryOptions } from './repositories/common.ts';

export async function openStorage(url: string, options: OpenOptions & RepositoryOptions = {}): Promise<Storage> {
  return createRepositories(await openDatabase(url, options), options);
}

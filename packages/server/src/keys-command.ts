import { parseArgs } from 'node:util';
import { AgentHostError, type ApiKeyInfo, type ApiKeyScope, ApiKeyService } from '@agenthost/core';
import { loadDeploymentSecret, openStore } from '@agenthost/storage';
import { fail, settingsOrExit } from './cli-settings.js';
import type { ServerConfig } from './config.js';
import { USAGE } from './help.js';
import { preparePrivateSqliteFile } from './store-claim.js';

function table(keys: ApiKeyInfo[]): string {
  const rows = [['ID', 'PREFIX', 'ACCOUNT', 'NAME', 'SCOPES', 'CREATED', 'LAST USED', 'REVOKED']];
  for (const k of keys)
    rows.push([
      k.key_id,
      `${k.prefix}…`,
      k.account_id,
      k.name ?? '-',
      k.scopes.join(','),
      k.created_at,
      k.last_used_at ?? 'never',
      k.revoked_at ?? '-',
    ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

interface KeysArgs {
  command: string | undefined;
  argument: string | undefined;
  values: { account?: string; name?: string; scopes?: string; json?: boolean };
}

function parse(args: string[]): KeysArgs {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const [, command, argument] = positionals;
  return { command, argument, values };
}

/** Reads the settings the servers read, so the keys land in their store under their secret. */
function storeConfig(env: Record<string, string | undefined>): ServerConfig {
  const config = settingsOrExit(env);
  if (config.store === 'memory')
    fail('AGENTHOST_STORE=memory keeps nothing between processes; point it at the store your servers use', 2);
  return config;
}

async function create(keys: ApiKeyService, { values }: KeysArgs): Promise<void> {
  if (!values.account) fail('keys create needs --account <account>', 2);
  const scopes = values.scopes?.split(',').map((s) => s.trim()) as ApiKeyScope[] | undefined;
  const { key, record } = await keys.createKey({
    account: values.account,
    ...(values.name && { name: values.name }),
    ...(scopes && { scopes }),
  });
  if (values.json) process.stdout.write(`${JSON.stringify({ key, ...record })}\n`);
  else
    process.stdout.write(
      `${key}\n\nkey ${record.key_id} for account "${record.account_id}" (${record.scopes.join(', ')}). This is the only time the key is shown.\n`,
    );
}

async function list(keys: ApiKeyService, { values }: KeysArgs): Promise<void> {
  const listed = await keys.listKeys(values.account ? { account: values.account } : {});
  process.stdout.write(values.json ? `${JSON.stringify(listed)}\n` : `${table(listed)}\n`);
}

async function revoke(keys: ApiKeyService, { argument, values }: KeysArgs): Promise<void> {
  if (!argument) fail('keys revoke needs the key id, e.g. agenthost keys revoke key_AbC123', 2);
  const record = await keys.revokeKey(argument);
  process.stdout.write(
    values.json
      ? `${JSON.stringify(record)}\n`
      : `revoked ${record.key_id} (${record.prefix}…, account "${record.account_id}") at ${record.revoked_at}\n`,
  );
}

const COMMANDS = { create, list, revoke };

/** A refusal of the key service as one line, its details included; then the process exits. */
function failWith(error: unknown): never {
  if (!AgentHostError.isInstance(error)) throw error;
  const details = error.details
    ? Object.values(error.details)
        .map((d) => ` ${d.message}`)
        .join(';')
    : '';
  fail(`${error.message}${details ? `:${details}` : ''}`, error.code === 'invalid_input' ? 2 : 1);
}

/** `agenthost keys create|list|revoke`: manages the API keys kept in the store the servers use. */
export async function keysCommand(args: string[], env: Record<string, string | undefined>): Promise<void> {
  const parsed = parse(args);
  const run = COMMANDS[parsed.command as keyof typeof COMMANDS];
  if (!Object.hasOwn(COMMANDS, parsed.command ?? '') || !run) {
    process.stdout.write(USAGE);
    process.exit(2);
  }
  const config = storeConfig(env);
  const opened = await (async () => {
    preparePrivateSqliteFile(config.store);
    return openStore(config.store, { namespace: config.storeNamespace });
  })().catch((error: Error) => fail(error.message));
  try {
    // The servers' secret: keys made under another one would not be found by them.
    const keys = new ApiKeyService({
      store: opened.store,
      secret: config.secret ?? (await loadDeploymentSecret(opened.store)),
    });
    await run(keys, parsed);
  } catch (error) {
    failWith(error);
  } finally {
    await opened.close();
  }
}

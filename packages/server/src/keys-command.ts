#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { AgentHostError, type ApiKeyInfo, type ApiKeyScope, ApiKeyService } from '@agenthost/core';
import { loadDeploymentSecret, openStore } from '@agenthost/storage';
import { ConfigError, loadConfig, type ServerConfig } from './config.js';

const HELP = `agenthost: manage the API keys kept in the store (the same AGENTHOST_STORE and
AGENTHOST_STORE_NAMESPACE as the server, so every server sharing the store sees the change at once)

  agenthost keys create --account <account> [--name <label>] [--scopes agents:read,agents:write,agents:run]
      Makes a key and prints it once. It is stored only as a digest: keep it now.
  agenthost keys list [--account <account>] [--json]
      Lists keys: id, prefix, account, name, scopes, created, last used, revoked.
  agenthost keys revoke <key_id>
      Revokes a key; every server refuses it from its next request.
`;

function fail(message: string, code = 1): never {
  process.stderr.write(`agenthost: ${message}\n`);
  process.exit(code);
}

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

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    account: { type: 'string' },
    name: { type: 'string' },
    scopes: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
}).valueOf() as {
  values: { account?: string; name?: string; scopes?: string; json?: boolean; help?: boolean };
  positionals: string[];
};

const [group, command, argument] = positionals;
if (values.help || group !== 'keys' || !command) {
  process.stdout.write(HELP);
  process.exit(values.help ? 0 : 2);
}

let config: ServerConfig;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) fail(error.message, 2);
  throw error;
}
if (config.store === 'memory')
  fail('AGENTHOST_STORE=memory keeps nothing between processes; point it at the store your servers use', 2);

const opened = await openStore(config.store, { namespace: config.storeNamespace }).catch((error: Error) =>
  fail(error.message),
);
try {
  // The servers' secret: keys made under another one would not be found by them.
  const keys = new ApiKeyService({
    store: opened.store,
    secret: config.secret ?? (await loadDeploymentSecret(opened.store)),
  });
  if (command === 'create') {
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
  } else if (command === 'list') {
    const list = await keys.listKeys(values.account ? { account: values.account } : {});
    process.stdout.write(values.json ? `${JSON.stringify(list)}\n` : `${table(list)}\n`);
  } else if (command === 'revoke') {
    if (!argument) fail('keys revoke needs the key id, e.g. agenthost keys revoke key_AbC123', 2);
    const record = await keys.revokeKey(argument);
    process.stdout.write(
      values.json
        ? `${JSON.stringify(record)}\n`
        : `revoked ${record.key_id} (${record.prefix}…, account "${record.account_id}") at ${record.revoked_at}\n`,
    );
  } else {
    process.stdout.write(HELP);
    process.exitCode = 2;
  }
} catch (error) {
  if (AgentHostError.isInstance(error)) {
    const details = error.details
      ? Object.values(error.details)
          .map((d) => ` ${d.message}`)
          .join(';')
      : '';
    fail(`${error.message}${details ? `:${details}` : ''}`, error.code === 'invalid_input' ? 2 : 1);
  }
  throw error;
} finally {
  await opened.close();
}

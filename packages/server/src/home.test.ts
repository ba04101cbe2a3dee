import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { agentHostHome, defaultStore } from './home.js';

test('the home folder: AGENTHOST_HOME, with ~ for the user home, else .agenthost in HOME or the system home', () => {
  expect(agentHostHome({ AGENTHOST_HOME: '/srv/agenthost', HOME: '/home/ada' })).toBe('/srv/agenthost');
  expect(agentHostHome({ AGENTHOST_HOME: '~/.config/agenthost', HOME: '/home/ada' })).toBe(
    '/home/ada/.config/agenthost',
  );
  expect(agentHostHome({ AGENTHOST_HOME: '~', HOME: '/home/ada' })).toBe('/home/ada');
  expect(agentHostHome({ AGENTHOST_HOME: 'data', HOME: '/home/ada' })).toBe(resolve('data'));
  expect(agentHostHome({ AGENTHOST_HOME: '  ', HOME: '/home/ada' })).toBe('/home/ada/.agenthost');
  expect(agentHostHome({})).toBe(join(homedir(), '.agenthost'));
  expect(defaultStore({ HOME: '/home/ada' })).toBe('sqlite:///home/ada/.agenthost/agenthost.sqlite');
});

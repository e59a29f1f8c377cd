// Where the machine's cache is: SHICE_CACHE, else XDG_CACHE_HOME/shice, else ~/.cache/shice.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { machineCacheDir } from '../../src/capture/machine/machine-cache.ts';

test("the machine's cache: SHICE_CACHE first, then an absolute XDG_CACHE_HOME, then the home folder's .cache", () => {
  assert.equal(machineCacheDir({}, '/home/a', '/srv/x'), '/home/a/.cache/shice');
  assert.equal(machineCacheDir({ XDG_CACHE_HOME: '/var/cache/a' }, '/home/a', '/srv/x'), '/var/cache/a/shice');
  assert.equal(
    machineCacheDir({ XDG_CACHE_HOME: 'rel' }, '/home/a', '/srv/x'),
    '/home/a/.cache/shice',
    'a relative XDG_CACHE_HOME is ignored, as the spec says',
  );
  assert.equal(machineCacheDir({ SHICE_CACHE: '/c', XDG_CACHE_HOME: '/var/cache/a' }, '/home/a', '/srv/x'), '/c');
  assert.equal(machineCacheDir({ SHICE_CACHE: 'cache' }, '/home/a', '/srv/x'), '/srv/x/cache', 'a relative SHICE_CACHE from the folder it is read in');
  assert.equal(machineCacheDir({ SHICE_CACHE: '' }, '/home/a', '/srv/x'), '/home/a/.cache/shice', 'empty is unset');
});

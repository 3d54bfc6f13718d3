import fs from 'node:fs';

import { CHROMIUM_ARGS, devShmIsRoomy, sharedMemoryLaunchOptions } from '../../server/browser/chromium';

/**
 * Where Chromium keeps its shared memory: /dev/shm where it has room (Playwright's default `--disable-dev-shm-usage`
 * dropped), files in the temp folder where it is a container's 64 MB.
 */
describe('Chromium shared memory flags', () => {
  afterEach(() => jest.restoreAllMocks());

  it('drops Playwright’s --disable-dev-shm-usage where /dev/shm has room, and adds none of its own', () => {
    expect(sharedMemoryLaunchOptions(true)).toEqual({ ignoreDefaultArgs: ['--disable-dev-shm-usage'], args: [] });
    expect(CHROMIUM_ARGS).not.toContain('--disable-dev-shm-usage');
  });

  it('keeps shared memory out of a small /dev/shm', () => {
    expect(sharedMemoryLaunchOptions(false)).toEqual({ args: ['--disable-dev-shm-usage'] });
  });

  it('calls 64 MB (Docker’s default) small and 1 GB roomy, and a missing /dev/shm small', () => {
    const sized = (bytes: number) => ({ bavail: bytes / 4096, bsize: 4096 }) as fs.StatsFs;
    const statfs = jest.spyOn(fs, 'statfsSync');
    statfs.mockReturnValueOnce(sized(64 * 1024 * 1024));
    expect(devShmIsRoomy()).toBe(false);
    statfs.mockReturnValueOnce(sized(1024 * 1024 * 1024));
    expect(devShmIsRoomy()).toBe(true);
    statfs.mockImplementationOnce(() => {
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    });
    expect(devShmIsRoomy()).toBe(false);
    expect(statfs).toHaveBeenCalledWith('/dev/shm');
  });
});

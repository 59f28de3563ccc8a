import { Janitor } from './janitor';

describe('Janitor', () => {
  it('runs cleanups newest first and keeps going after a failure', async () => {
    const janitor = new Janitor();
    const order: string[] = [];
    janitor.defer('database', () => {
      order.push('database');
    });
    janitor.defer('service', () => {
      throw new Error('already gone');
    });
    janitor.defer('floor', async () => {
      order.push('floor');
    });

    const failures = await janitor.cleanAll();

    expect(order).toEqual(['floor', 'database']);
    expect(failures).toEqual(['service: already gone']);
    expect(janitor.pending).toEqual([]);
  });

  it('lets a resource be released early, exactly once', async () => {
    const janitor = new Janitor();
    let released = 0;
    const { release } = janitor.defer('process', () => {
      released += 1;
    });

    await release();
    await release();
    await janitor.cleanAll();

    expect(released).toBe(1);
  });

  it('forgets a resource that is kept on purpose', async () => {
    const janitor = new Janitor();
    let dropped = false;
    const handle = janitor.defer('seed cache', () => {
      dropped = true;
    });

    handle.dismiss();
    await janitor.cleanAll();

    expect(dropped).toBe(false);
  });

  it('cleans again after a pass that found nothing to do', async () => {
    const janitor = new Janitor();
    await janitor.cleanAll();
    let cleaned = false;
    janitor.defer('redis keys', () => {
      cleaned = true;
    });

    await janitor.cleanAll();

    expect(cleaned).toBe(true);
  });
});

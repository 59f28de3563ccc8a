import { MemorySessionStore } from './memory-session.store';
import { describeSessionStoreContract } from './session-store.contract';

describeSessionStoreContract('MemorySessionStore', () => {
  const shared = new MemorySessionStore();
  return { create: (now) => (now ? new MemorySessionStore(now) : shared) };
});

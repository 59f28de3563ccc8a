import { simulatorStartupWarning } from './simulator.module';

describe('the simulator at start-up', () => {
  it('is served in production with a warning, and silently elsewhere', () => {
    expect(simulatorStartupWarning('production')).toBe(
      'SIMULATOR_ENABLED=true in production: GET /simulator is served; turn it off unless this is a test deployment',
    );
    expect(simulatorStartupWarning('development')).toBeUndefined();
    expect(simulatorStartupWarning('test')).toBeUndefined();
  });
});

export * from './types.ts';
export { LogAlerts } from './log-alerts.ts';

/** The variable global-setup.ts fills with the shared PostgreSQL server's base URL (no database path). */
export const PG_URL_ENV = 'AGENTLINK_TEST_PG_URL';

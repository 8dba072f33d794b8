/**
 * Test isolation: no inherited credentials or data directory, fast password hashing, and a
 * clean environment for every configuration a test builds.
 */
const INHERITED = [
  "DATA_DIR",
  "JWT_KEY_PATH",
  "API_KEY_PEPPER",
  "QUIRE_API_KEY_PEPPER",
  "QUIRE_API_KEY",
  "BASE_URL",
  "PORT",
  "QUIRE_ENV",
  "QUIRE_DISABLE_SIGNUP",
  "TRUST_PROXY",
  "LOG_LEVEL",
  "LOG_FORMAT",
];
for (const name of Object.keys(process.env)) {
  if (INHERITED.includes(name) || name.startsWith("SMTP_") || name.startsWith("STRIPE_") || name.startsWith("OIDC_") || name.startsWith("ARGON2_") || name.startsWith("QUIRE_") || name.startsWith("AI_") || name.startsWith("MCP_")) {
    delete process.env[name];
  }
}
process.env.QUIRE_ENV = "test";

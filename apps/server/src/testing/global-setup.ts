/** Says once per run which adapters the suite covers, so a run without PostgreSQL cannot pass unnoticed. */
export default function setup(): void {
  if (process.env.PHAROS_TEST_DATABASE_URL) {
    console.log("Storage adapters under test: SQLite and PostgreSQL (PHAROS_TEST_DATABASE_URL).");
  } else {
    console.log("Storage adapters under test: SQLite only — PostgreSQL was NOT tested (set PHAROS_TEST_DATABASE_URL).");
  }
}

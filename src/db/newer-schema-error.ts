/**
 * A database a newer Quire has migrated further than this one knows. Migrations only go forward
 * (none can be undone), so this version refuses to open it rather than misread or damage it.
 */
export class NewerSchemaError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `This data directory was written by a newer Quire (database schema ${found}; this version knows up to ${known}). ` +
        "Database migrations only go forward, so an older Quire cannot open it: run that newer version (or later), " +
        "or restore a backup made before the upgrade.",
    );
    this.name = "NewerSchemaError";
  }
}

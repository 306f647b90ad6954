"""What every stage shares: errors, the frozen config, resources, table schemas, the names of the
files in raw/ and dist/, the generated blocks of the docs, and the guard of every folder a command writes. Imports nothing else of the package."""

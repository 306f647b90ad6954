"""What a contributor's pull request goes through: ``add`` takes a new dump into raw/ (checked,
numbered, its metadata file written) and shows what it changes against the release beside raw/.
May import every stage folder and the build (build/); only the CLI imports it."""

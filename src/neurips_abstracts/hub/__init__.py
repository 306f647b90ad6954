"""Publishing a built release to the Hugging Face Hub as one commit with a version tag.
May import every stage folder and the build (build.py); only the CLI imports it."""

"""Publishing a built release to the Hugging Face Hub as one commit with a version tag: the
command's steps before anything is sent (``steps``), the plan of what changes (``plan``), the
commit and tag (``publish``). May import every stage folder and the build (build/); only the
CLI imports it."""

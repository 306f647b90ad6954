"""Publishing a built release to the Hugging Face Hub as one commit with a version tag, by job:
``client`` (the Hub client: timeouts, retries, redaction), ``staging`` (the command's steps
before anything is sent: preconditions, the release staged and verified), ``plan`` (what
changes), ``protocol`` (the commit and the tag, with its recovery steps as named functions).
May import every stage folder and the build (build/); only the CLI imports it."""

from chunklab.cli import script_main

raise SystemExit(script_main())

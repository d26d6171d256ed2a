from chunklab.cli import main

raise SystemExit(main())

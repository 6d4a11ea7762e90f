from cdc_tools.bench.run import main

raise SystemExit(main())

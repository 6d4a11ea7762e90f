from cdc_lakehouse.bench.run import main

raise SystemExit(main())

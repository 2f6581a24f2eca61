"""accelbench installed by pip: the `accelbench` command (launcher.py) and its engine
(accelbench-engine, the C++ binary built against this environment's torch)."""

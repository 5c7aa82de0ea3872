"""Environments over :mod:`ffo_env.core`: PettingZoo AEC (:mod:`ffo_env.envs.aec`), a
single-agent gymnasium env against a fixed opponent (:mod:`ffo_env.envs.single_agent`)
and wrappers (:mod:`ffo_env.envs.wrappers`)."""

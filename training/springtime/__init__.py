"""Training for Springtime for Hitler (issue 41): ``ffo train --game springtime``.

Method: DAgger from the scripted heuristic (:mod:`.imitation`) as a warm start, then MaskablePPO
(sb3-contrib; :mod:`.ppo`) on the flat 1351-float observation with action masks, each side in rounds
against a mix of the bots and the other side's latest policy (:mod:`.opponents`). The run folder is
:class:`training.run_folder.RunFolder`'s layout; the stages and what they write are in :mod:`.command`;
the config in :mod:`.config` (``configs/springtime/train_quick.yaml``, ``configs/springtime/train.yaml``).
Policies are :mod:`agents.springtime.policy` files (weights-only ``.pt`` + metadata ``.json``).
"""

"""The sentinel of test_secrets.py planted in every scenario of
tests/cluster/scenarios whose pods take env from a Secret (secretKeyRef or
envFrom secretRef): no output of any format, no stderr, nothing at -v 9
holds it (issue 37 item 1).  One class per scenario, made here."""
import glob
import os
import unittest

import yaml

from base import E2ECase
from test_secrets import SCENARIOS, SecretSweep, plant


def secret_scenarios():
    """The scenario files with a Secret-fed pod (hostile-secret-* aside:
    test_secrets.py runs those)."""
    out = []
    for path in sorted(glob.glob(os.path.join(SCENARIOS, "*.yaml"))):
        if os.path.basename(path).startswith("hostile-secret-"):
            continue
        with open(path) as f:
            doc = yaml.safe_load(f)
        if isinstance(doc, dict) and plant(doc, SCENARIOS)[1]:
            out.append(path)
    return out


for _path in secret_scenarios():
    _name = "Sweep_" + os.path.basename(_path)[:-5].replace("-", "_").replace(".", "_")
    globals()[_name] = type(_name, (SecretSweep, E2ECase), {"SCENARIO_FILE": _path})


class SweepCovers(unittest.TestCase):
    def test_found(self):
        """The sweep is no pass by finding nothing."""
        self.assertGreaterEqual(len(secret_scenarios()), 20)


if __name__ == "__main__":
    unittest.main()

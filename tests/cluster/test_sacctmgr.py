"""sacctmgr against a real controller: every entity (cluster, account, user,
QOS, coordinator, TRES, association) added, modified, listed and deleted with
Slurm's words and columns; the tree, -P/-p/-n and format= widths; dump and
load of the flat file round-tripping; what Slurm refuses (a cycle in the
account tree, deleting an account or user with jobs, unknown accounts and
QOS, duplicates, bad TRES and limits, plain users and coordinators beyond
their rights); the commit question without -i; hostile names; and a
controller killed and restarted keeps everything."""
import os
import signal
import time

import pytest

from conftest import start_cluster, stop_cluster


@pytest.fixture(scope="module")
def cluster(users):
    c = start_cluster(2)
    try:
        yield c
    finally:
        stop_cluster(c)


def mgr(cluster, *args, user=None, input=None):
    return cluster.run(["sacctmgr", *args], user=user, input=input)


def ok(cluster, *args, user=None):
    r = mgr(cluster, "-i", *args, user=user)
    assert r.rc == 0, f"sacctmgr {args}: {r}"
    return r.out


def rows(cluster, *args, user=None):
    """list ... -P -n as a list of field lists."""
    r = mgr(cluster, "-P", "-n", "list", *args, user=user)
    assert r.rc == 0, f"sacctmgr list {args}: {r}"
    return [line.split("|") for line in r.out.splitlines()]


def refused(cluster, *args, says, user=None):
    r = mgr(cluster, "-i", *args, user=user)
    assert r.rc == 1, f"sacctmgr {args} should fail: {r}"
    assert says in r.err, f"sacctmgr {args}: {r.err!r} lacks {says!r}"
    return r


def cell(value, width):
    """One cell as Slurm's print_fields draws it (right-justified, '+' when cut)."""
    if len(value) > abs(width):
        value = value[:abs(width) - 1] + "+"
    return (value.rjust(width) if width > 0 else value.ljust(-width)) + " "


def test_defaults(cluster):
    """A new cluster has itself, root (account, association, Administrator
    user) and QOS normal (ID 1), as slurmdbd makes them."""
    cl = cluster.name
    assert rows(cluster, "cluster", "format=cluster,qos") == [[cl, "normal"]]
    assert rows(cluster, "account", "root") == [["root", "default root account", "root"]]
    assert rows(cluster, "user", "root") == [["root", "root", "Administrator"]]
    assert rows(cluster, "qos", "normal", "format=name,id,priority,usagefactor,preemptmode") == \
        [["normal", "1", "0", "1.000000", "cluster"]]
    assoc = rows(cluster, "assoc", "account=root", "format=cluster,account,user,share,qos")
    assert assoc == [[cl, "root", "", "1", "normal"], [cl, "root", "root", "1", "normal"]]


def test_list_tres(cluster):
    r = mgr(cluster, "list", "tres")
    assert r.rc == 0, r
    lines = r.out.splitlines()
    assert lines[0] == cell("Type", 8) + cell("Name", 15) + cell("ID", 6)
    assert lines[1] == "-" * 8 + " " + "-" * 15 + " " + "-" * 6 + " "
    assert lines[2] == cell("cpu", 8) + cell("", 15) + cell("1", 6)
    assert rows(cluster, "tres") == [
        ["cpu", "", "1"], ["mem", "", "2"], ["energy", "", "3"], ["node", "", "4"],
        ["billing", "", "5"], ["fs", "disk", "6"], ["vmem", "", "7"], ["pages", "", "8"],
        ["gres", "gpu", "1001"]]
    assert rows(cluster, "tres", "type=gres") == [["gres", "gpu", "1001"]]


def test_add_account(cluster):
    cl = cluster.name
    out = ok(cluster, "add", "account", "physics", "Description=physics dept",
             "Organization=science")
    assert out == (" Adding Account(s)\n  physics\n Settings\n"
                   "  Description     = physics dept\n  Organization    = science\n"
                   f" Associations\n  A = physics    C = {cl:<10}\n Settings\n"
                   "  Parent        = root\n")
    # a second add is Slurm's "Nothing new added." and exit 1
    r = mgr(cluster, "-i", "add", "account", "physics")
    assert (r.rc, r.out) == (1, " Nothing new added.\n")
    # defaults, as Slurm: description the name, organization the parent's
    # name (under root, the account's own)
    out = ok(cluster, "add", "account", "chem", "parent=physics", "fairshare=10",
             "GrpTRES=cpu=10,mem=4G", "MaxWall=2:00:00", "GrpJobs=7")
    assert "  Description     = Account Name\n  Organization    = Parent/Account Name\n" in out
    assert out.endswith(" Settings\n  Fairshare     = 10\n  GrpJobs       = 7\n"
                        "  GrpTRES       = cpu=10,mem=4G\n  MaxWall       = 02:00:00\n"
                        "  Parent        = physics\n")
    assert rows(cluster, "account", "chem") == [["chem", "chem", "physics"]]
    assert rows(cluster, "assoc", "account=chem",
                "format=account,share,grptres,grpjobs,maxwall,parentname") == \
        [["chem", "10", "cpu=10,mem=4G", "7", "02:00:00", "physics"]]
    # names are kept in lower case, as Slurm's database does
    ok(cluster, "add", "account", "BIO", "parent=root")
    assert rows(cluster, "account", "bio", "format=account") == [["bio"]]


def test_add_user(cluster, users):
    cl = cluster.name
    out = ok(cluster, "add", "user", "herdu1", "account=physics", "maxjobs=5")
    # Slurm shows Settings only for what was given (DefaultAccount, AdminLevel)
    assert out == (" Adding User(s)\n  herdu1\n"
                   f" Associations =\n  U = herdu1    A = physics    C = {cl:<10}\n"
                   " Non Default Settings\n  MaxJobs       = 5\n")
    # an existing user in another account: only the association is new
    out = ok(cluster, "add", "user", "herdu1", "account=chem")
    assert out == f" Associations =\n  U = herdu1    A = chem       C = {cl:<10}\n"
    r = mgr(cluster, "-i", "add", "user", "herdu1", "account=chem")
    assert (r.rc, r.out) == (1, " Nothing new added.\n")
    refused(cluster, "add", "user", "herdu2", "account=nosuch",
            says="This account 'nosuch' doesn't exist. Contact your admin")
    refused(cluster, "add", "user", "herdu2", says="Need a default account")
    assert rows(cluster, "user", "herdu2") == []
    assert rows(cluster, "user", "herdu1") == [["herdu1", "physics", "None"]]
    got = rows(cluster, "user", "herdu1", "withassoc",
               "format=user,defaultaccount,cluster,account,maxjobs")
    assert got == [["herdu1", "physics", cl, "physics", "5"], ["herdu1", "physics", cl, "chem", ""]]
    # -s is withassoc too
    assert rows(cluster, "-s", "user", "herdu1", "format=account") == [["physics"], ["chem"]]


def test_modify_user(cluster, users):
    ok(cluster, "add", "qos", "high", "priority=100")
    out = ok(cluster, "modify", "user", "herdu1", "set", "adminlevel=operator",
             "defaultaccount=chem")
    assert out == " Modified users...\n  herdu1\n"
    assert rows(cluster, "user", "herdu1") == [["herdu1", "chem", "Operator"]]
    out = ok(cluster, "modify", "user", "where", "name=herdu1", "account=physics", "set",
             "maxjobs=-1", "maxsubmit=20", "GrpTRES=cpu=4", "fairshare=parent", "qos+=high",
             "maxwall=90")
    assert out.startswith(" Modified user associations...\n  C = ")
    assert "A = physics              U = herdu1   \n" in out
    fields = "format=account,share,maxjobs,maxsubmit,grptres,qos,maxwall"
    assert rows(cluster, "assoc", "user=herdu1", fields) == [
        ["physics", "parent", "", "20", "cpu=4", "normal,high", "01:30:00"],
        ["chem", "1", "", "", "", "normal", ""]]
    ok(cluster, "modify", "user", "herdu1", "where", "account=physics", "set", "qos-=normal",
       "defaultqos=high", "GrpTRES=mem=1G", "fairshare=-1")
    assert rows(cluster, "assoc", "user=herdu1", "account=physics",
                "format=qos,defqos,grptres,share") == [["high", "high", "cpu=4,mem=1G", "1"]]
    # a default QOS outside the list is refused
    refused(cluster, "modify", "user", "herdu1", "where", "account=physics", "set",
            "defaultqos=normal", says="not in the QOS list")
    refused(cluster, "modify", "user", "herdu1", "set", "defaultaccount=bio",
            says="has no association with account 'bio'")
    refused(cluster, "modify", "user", "herdu1", "set", "qos=bogus", says="Invalid QOS name 'bogus'")
    refused(cluster, "modify", "user", "herdu1", "set", "adminlevel=king", says="Invalid AdminLevel")
    r = mgr(cluster, "-i", "modify", "user", "nobody", "set", "maxjobs=1")
    assert (r.rc, r.out) == (1, " Nothing modified\n")
    ok(cluster, "modify", "user", "herdu1", "set", "adminlevel=none", "defaultaccount=physics")


def test_modify_account_and_cycle(cluster):
    out = ok(cluster, "modify", "account", "chem", "set", "Description=chemistry",
             "Organization=labs", "flags=TeamJobs")
    assert out == " Modified accounts...\n  chem\n"
    assert rows(cluster, "account", "chem", "format=account,descr,org,flags") == \
        [["chem", "chemistry", "labs", "TeamJobs"]]
    ok(cluster, "modify", "account", "where", "name=chem", "set", "flags-=TeamJobs",
       "maxjobs=3", "grpjobs=-1", "MaxTRESPerNode=gres/gpu=2", "MaxTRESMins=cpu=600")
    assert rows(cluster, "account", "chem", "withassoc",
                "format=account,flags,user,maxjobs,grpjobs,maxtrespernode,maxtresmins") == [
        ["chem", "", "", "3", "", "gres/gpu=2", "cpu=600"],
        ["chem", "", "herdu1", "", "", "", ""]]
    # moving an account under itself or its own sub-account is refused
    refused(cluster, "modify", "account", "physics", "set", "parent=chem",
            says="Can't move account 'physics' under 'chem'")
    refused(cluster, "modify", "account", "chem", "set", "parent=chem",
            says="Can't move account 'chem' under 'chem'")
    refused(cluster, "modify", "account", "chem", "set", "parent=nosuch",
            says="Parent account 'nosuch' doesn't exist")
    # a real move, and back
    ok(cluster, "modify", "account", "chem", "set", "parent=bio")
    assert rows(cluster, "assoc", "account=chem", "format=account,parentname")[0] == ["chem", "bio"]
    ok(cluster, "modify", "account", "chem", "set", "parent=physics")


def test_tree(cluster):
    cl = cluster.name
    r = mgr(cluster, "list", "assoc", "tree", "format=cluster,account,user")
    assert r.rc == 0, r
    lines = r.out.splitlines()
    assert lines[0] == cell("Cluster", 10) + cell("Account", -20) + cell("User", 10)
    body = [line for line in lines[2:]]
    want = [("root", ""), (" root", "root"), (" bio", ""), (" physics", ""),
            ("  physics", "herdu1"), ("  chem", ""), ("   chem", "herdu1")]
    assert body == [cell(cl, 10) + cell(a, -20) + cell(u, 10) for a, u in want]
    # -P keeps the indentation in the value
    got = [f[0] for f in rows(cluster, "assoc", "tree", "format=account")]
    assert got == [a for a, _ in want]


def test_parsable_noheader_and_widths(cluster):
    r = mgr(cluster, "-p", "list", "account", "physics")
    assert r.out == "Account|Descr|Org|\nphysics|physics dept|science|\n"
    r = mgr(cluster, "-P", "list", "account", "physics")
    assert r.out == "Account|Descr|Org\nphysics|physics dept|science\n"
    r = mgr(cluster, "-n", "list", "account", "physics", "format=account%20,descr%-5,org%3")
    assert r.out == cell("physics", 20) + cell("physics dept", -5) + cell("science", 3) + "\n"
    assert r.out == "             physics phys+ sc+ \n"
    r = mgr(cluster, "list", "user", "root")
    assert r.out.splitlines()[2] == cell("root", 10) + cell("root", 10) + cell("Administrator", 9)
    r = mgr(cluster, "list", "account", "format=bogus")
    assert r.rc == 1 and 'Invalid field requested: "bogus"' in r.err
    # --format is format= (before or after the command words)
    assert mgr(cluster, "-P", "--format=org,account", "list", "account", "physics").out == \
        "Org|Account\nscience|physics\n"
    assert mgr(cluster, "-P", "list", "account", "physics", "--format=descr").out == \
        "Descr\nphysics dept\n"
    # Slurm 22.05's default columns with associations
    r = mgr(cluster, "-P", "list", "account", "physics", "withassoc")
    assert r.out.splitlines()[0] == (
        "Account|Descr|Org|Cluster|Par Name|User|Share|Priority|GrpJobs|GrpNodes|GrpCPUs|GrpMem|"
        "GrpSubmit|GrpWall|GrpCPUMins|MaxJobs|MaxNodes|MaxCPUs|MaxSubmit|MaxWall|MaxCPUMins|QOS|"
        "Def QOS")
    r = mgr(cluster, "-P", "list", "user", "root", "-s")
    assert r.out.splitlines()[0] == (
        "User|Def Acct|Admin|Cluster|Account|Partition|Share|Priority|MaxJobs|MaxNodes|MaxCPUs|"
        "MaxSubmit|MaxWall|MaxCPUMins|QOS|Def QOS")
    r = mgr(cluster, "-P", "list", "assoc", "account=root")
    assert r.out.splitlines()[0] == (
        "Cluster|Account|User|Partition|Share|Priority|GrpJobs|GrpTRES|GrpSubmit|GrpWall|"
        "GrpTRESMins|MaxJobs|MaxTRES|MaxTRESPerNode|MaxSubmit|MaxWall|MaxTRESMins|QOS|Def QOS|"
        "GrpTRESRunMins")
    # not parsable: a title cut to its width without the '+'
    r = mgr(cluster, "list", "assoc", "account=root", "format=grptresrunmins")
    assert r.out.splitlines()[0] == "GrpTRESRunMin "
    r = mgr(cluster, "-P", "list", "cluster")
    assert r.out.splitlines()[0] == ("Cluster|ControlHost|ControlPort|RPC|Share|GrpJobs|GrpTRES|"
                                     "GrpSubmit|MaxJobs|MaxTRES|MaxSubmit|MaxWall|QOS|Def QOS")
    r = mgr(cluster, "-P", "list", "qos", "normal")
    assert r.out.splitlines()[0] == (
        "Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|Flags|UsageThres|"
        "UsageFactor|GrpTRES|GrpTRESMins|GrpTRESRunMins|GrpJobs|GrpSubmit|GrpWall|MaxTRES|"
        "MaxTRESPerNode|MaxTRESMins|MaxWall|MaxTRESPU|MaxJobsPU|MaxSubmitPU|MaxTRESPA|MaxJobsPA|"
        "MaxSubmitPA|MinTRES")


def test_abbreviations(cluster):
    """Commands, entities and keys shortened as Slurm allows; the old
    one-TRES keys are a TRES of the TRES limits."""
    ok(cluster, "cre", "acc", "abbr", "Descr=short", "Org=o", "par=physics", "MaxS=4",
       "GrpCPUs=8", "GrpNodes=2", "MaxCPUs=3", "Fair=5", "GrpW=60")
    r = mgr(cluster, "-Pn", "sho", "ass", "account=abbr",
            "format=maxsubmit,grptres,maxtres,share,grpwall,grpcpus,maxcpus")
    assert (r.rc, r.out) == (0, "4|cpu=8,node=2|cpu=3|5|01:00:00|8|3\n")
    ok(cluster, "update", "acc", "where", "names=abbr", "set", "GrpCPUs=-1", "MaxWallDurationPerJob=1-0")
    assert rows(cluster, "assoc", "account=abbr", "format=grptres,maxwall") == \
        [["node=2", "1-00:00:00"]]
    out = ok(cluster, "rem", "acc", "abbr")
    assert out.startswith(" Deleting accounts...\n  abbr\n")


def test_qos(cluster):
    out = ok(cluster, "add", "qos", "low", "Description=cheap runs", "priority=5",
             "UsageFactor=0.5", "flags=DenyOnLimit,NoReserve", "preempt=normal",
             "preemptmode=requeue", "MaxTRESPerUser=cpu=8", "MaxJobsPerUser=4",
             "MaxSubmitJobsPerUser=10", "MaxWall=1-00:00:00", "GrpTRES=node=2", "GrpJobs=6")
    assert out == (" Adding QOS(s)\n  low\n Settings\n  Description    = cheap runs\n"
                   "  Flags                    = DenyOnLimit,NoReserve\n"
                   "  GrpJobs                  = 6\n"
                   "  GrpTRES                  = node=2\n"
                   "  MaxJobsPerUser = 4\n"
                   "  MaxSubmitJobsPerUser     = 10\n"
                   "  MaxTRESPerUser           = cpu=8\n"
                   "  MaxWall                  = 1-00:00:00\n"
                   "  Preempt                  = normal\n"
                   "  PreemptMode              = requeue\n"
                   "  Priority                 = 5\n"
                   "  UsageFactor              = 0.5000\n")
    assert rows(cluster, "qos", "low", "format=name,descr,priority,usagefactor,flags,preempt,"
                "preemptmode,maxtrespu,maxjobspu,maxsubmitpu,maxwall,grptres,grpjobs") == [
        ["low", "cheap runs", "5", "0.500000", "DenyOnLimit,NoReserve", "normal", "requeue",
         "cpu=8", "4", "10", "1-00:00:00", "node=2", "6"]]
    ids = {f[0]: int(f[1]) for f in rows(cluster, "qos", "format=name,id")}
    assert ids["normal"] == 1 and ids["high"] == 2 and ids["low"] == 3
    out = ok(cluster, "modify", "qos", "low", "set", "priority=7", "flags+=NoDecay",
             "preempt+=high", "maxjobsperuser=-1")
    assert out == " Modified qos...\n  low\n"
    assert rows(cluster, "qos", "low", "format=priority,flags,preempt,maxjobspu") == \
        [["7", "DenyOnLimit,NoReserve,NoDecay", "normal,high", ""]]
    refused(cluster, "modify", "qos", "low", "set", "preempt=low", says="can't preempt itself")
    refused(cluster, "add", "qos", "bad", "preempt=nosuch", says="Invalid QOS name 'nosuch'")
    refused(cluster, "add", "qos", "bad", "flags=Fast", says="Invalid QOS flag")
    refused(cluster, "add", "qos", "bad", "usagefactor=x", says="Invalid value 'x' for UsageFactor")
    refused(cluster, "delete", "qos", "normal", says="can't be deleted")
    # a QOS deleted is dropped from the lists that named it
    ok(cluster, "add", "qos", "gone")
    ok(cluster, "modify", "account", "bio", "set", "qos=normal,gone")
    out = ok(cluster, "delete", "qos", "gone")
    assert out == " Deleting QOS(s)...\n  gone\n"
    assert rows(cluster, "assoc", "account=bio", "format=qos") == [["normal"]]
    r = mgr(cluster, "-i", "delete", "qos", "gone")
    assert (r.rc, r.out) == (1, " Nothing deleted\n")


def test_slurm_transcript(cluster):
    """What Slurm's own sacctmgr prints for a site's set-up script (a
    published transcript of Slurm 22.05-era output)."""
    out = ok(cluster, "add", "QOS", "Name=supporters", "Priority=100")
    assert out == (" Adding QOS(s)\n  supporters\n Settings\n  Description    = supporters\n"
                   "  Priority                 = 100\n")
    out = ok(cluster, "modify", "QOS", "set", "supporters", "Priority=0")
    assert out == " Modified qos...\n  supporters\n"
    out = ok(cluster, "add", "cluster", "Name=micro", "Fairshare=1", "QOS=normal,supporters")
    assert out == (" Adding Cluster(s)\n  Name           = micro\n Setting\n  Default Limits:\n"
                   "  Fairshare     = 1\n  QOS           = normal,supporters\n")
    out = ok(cluster, "add", "account", "name=account0", "Fairshare=100", "cluster=micro")
    assert out == (" Adding Account(s)\n  account0\n Settings\n  Description     = Account Name\n"
                   "  Organization    = Parent/Account Name\n Associations\n"
                   "  A = account0   C = micro     \n Settings\n  Fairshare     = 100\n"
                   "  Parent        = root\n")
    out = ok(cluster, "add", "user", "name=herdu2", "DefaultAccount=account0", "cluster=micro",
             "MaxSubmitJobs=1000", "AdminLevel=none")
    assert out == (" Adding User(s)\n  herdu2\n Settings =\n  Default Account = account0\n"
                   "  Admin Level     = None\n Associations =\n"
                   "  U = herdu2    A = account0   C = micro     \n Non Default Settings\n"
                   "  MaxSubmitJobs = 1000\n")
    out = ok(cluster, "modify", "user", "herdu2", "where", "cluster=micro", "set", "MaxJobs=4")
    assert out == (" Modified user associations...\n"
                   "  C = micro      A = account0             U = herdu2   \n")
    ok(cluster, "delete", "cluster", "micro")
    ok(cluster, "delete", "qos", "supporters")
    # its only association gone with the cluster, the user has no default account
    assert rows(cluster, "user", "herdu2") == [["herdu2", "", "None"]]


def test_clusters(cluster):
    out = ok(cluster, "add", "cluster", "other")
    assert out == " Adding Cluster(s)\n  Name           = other\n"
    assert [f[0] for f in rows(cluster, "cluster", "format=cluster")] == \
        sorted([cluster.name, "other"])
    ok(cluster, "modify", "cluster", "other", "set", "fairshare=5", "maxjobs=9")
    assert rows(cluster, "cluster", "other", "format=cluster,share,maxjobs,qos") == \
        [["other", "5", "9", "normal"]]
    # an account on the other cluster too
    ok(cluster, "add", "account", "physics", "cluster=other")
    assert rows(cluster, "assoc", "cluster=other", "format=cluster,account") == \
        [["other", "root"], ["other", "physics"]]
    refused(cluster, "delete", "cluster", cluster.name, says="own")
    out = ok(cluster, "delete", "cluster", "other")
    assert out == " Deleting clusters...\n  other\n"
    assert rows(cluster, "assoc", "cluster=other") == []
    # the account lives on: it still has this cluster's association
    assert rows(cluster, "account", "physics", "format=account") == [["physics"]]


def test_filters(cluster, users):
    """where conditions of each list, and the lists Herd adds."""
    chem_id = rows(cluster, "assoc", "account=chem", "user=", "format=id,user")
    acct_id = [f[0] for f in chem_id if f[1] == ""][0]
    assert rows(cluster, "assoc", f"id={acct_id}", "format=account,user") == [["chem", ""]]
    assert rows(cluster, "assoc", "parent=physics", "format=account") == [["chem"]]
    assert rows(cluster, "assoc", "users=herdu1", "accounts=chem,physics", "format=account") == \
        [["physics"], ["chem"]]
    assert rows(cluster, "user", "where", "defaultaccount=physics", "format=user") == [["herdu1"]]
    assert rows(cluster, "user", "adminlevel=administrator", "format=user") == [["root"]]
    assert rows(cluster, "user", "account=chem", "format=user") == [["herdu1"]]
    assert rows(cluster, "account", "where", "parent=physics", "format=account") == [["chem"]]
    assert rows(cluster, "account", "organization=science", "format=account") == [["physics"]]
    qid = {f[0]: f[1] for f in rows(cluster, "qos", "format=name,id")}
    assert rows(cluster, "qos", f"id={qid['high']}", "format=name") == [["high"]]
    ok(cluster, "modify", "qos", "where", f"id={qid['high']}", "set", "GrpTRESMins=cpu=6000",
       "GrpWall=10:00:00")
    assert rows(cluster, "qos", "high", "format=grptresmins,grpwall") == [["cpu=6000", "10:00:00"]]
    ok(cluster, "modify", "account", "chem", "set", "GrpTRESMins=gres/gpu=60", "GrpWall=1-0")
    assert rows(cluster, "assoc", "account=chem", "format=grptresmins,grpwall,user")[0] == \
        ["gres/gpu=60", "1-00:00:00", ""]
    assert rows(cluster, "cluster", cluster.name, "format=cluster") == [[cluster.name]]
    assert rows(cluster, "cluster", "nosuch") == []
    refused(cluster, "list", "user", "colour=red", says="Unknown option: colour=red")
    refused(cluster, "list", "qos", "where", "account=physics", says="Unknown qos option: account")


def test_plain_user_may_list_not_change(cluster, users):
    assert rows(cluster, "account", "physics", "format=account", user="herdu2") == [["physics"]]
    for args in (("add", "account", "x"), ("add", "qos", "x"), ("add", "user", "herdu2",
                 "account=physics"), ("modify", "account", "physics", "set", "maxjobs=1"),
                 ("delete", "account", "bio"), ("modify", "user", "herdu1", "set",
                 "adminlevel=administrator"), ("add", "cluster", "x"),
                 ("add", "coordinator", "account=physics", "names=herdu2")):
        refused(cluster, *args, user="herdu2", says="Access/permission denied")
    assert rows(cluster, "account", "x") == []


def test_coordinator(cluster, users):
    ok(cluster, "add", "account", "lab", "parent=root")
    ok(cluster, "add", "user", "herdu2", "account=lab")
    out = ok(cluster, "add", "coordinator", "account=physics", "names=herdu1")
    assert out == (" Adding Coordinator User(s)\n  herdu1\n"
                   " To Account(s) and all sub-accounts\n  physics\n")
    assert rows(cluster, "user", "herdu1", "withcoord", "format=user,coordinatoraccounts") == \
        [["herdu1", "physics"]]
    assert rows(cluster, "account", "physics", "withcoord", "format=account,coordinators") == \
        [["physics", "herdu1"]]
    # the coordinator adds users to its accounts and those under them, sets
    # their limits, makes sub-accounts and more coordinators there ...
    ok(cluster, "add", "user", "herdu2", "account=physics", user="herdu1")
    ok(cluster, "add", "user", "herdu2", "account=chem", user="herdu1")
    ok(cluster, "modify", "user", "herdu2", "where", "account=physics", "set", "maxjobs=3",
       user="herdu1")
    ok(cluster, "add", "account", "optics", "parent=physics", user="herdu1")
    ok(cluster, "modify", "account", "optics", "set", "grpjobs=4", user="herdu1")
    ok(cluster, "add", "coordinator", "account=optics", "names=herdu2", user="herdu1")
    assert rows(cluster, "assoc", "user=herdu2", "account=physics", "format=maxjobs") == [["3"]]
    # ... but nothing outside them, no QOS, no admin levels, not its own account's limits
    refused(cluster, "add", "user", "herdu1", "account=lab", user="herdu1",
            says="Access/permission denied")
    refused(cluster, "modify", "user", "herdu2", "where", "account=lab", "set", "maxjobs=1",
            user="herdu1", says="Access/permission denied")
    refused(cluster, "add", "account", "x", "parent=lab", user="herdu1",
            says="Access/permission denied")
    refused(cluster, "add", "qos", "x", user="herdu1", says="Access/permission denied")
    refused(cluster, "modify", "user", "herdu2", "set", "adminlevel=operator", user="herdu1",
            says="Access/permission denied")
    refused(cluster, "modify", "account", "physics", "set", "grpjobs=1", user="herdu1",
            says="Access/permission denied")
    refused(cluster, "delete", "user", "herdu2", user="herdu1", says="Access/permission denied")
    out = ok(cluster, "delete", "user", "herdu2", "where", "account=chem", user="herdu1")
    assert out.startswith(" Deleting user associations...\n  C = ")
    out = ok(cluster, "delete", "coordinator", "account=optics", "names=herdu2", user="herdu1")
    assert out == (" Removing Coordinators with user name\n  herdu2\n From Account(s)\n  optics\n"
                   " Removed Coordinators (sub accounts not listed)...\n"
                   "  U = herdu2    A = optics    \n")
    r = mgr(cluster, "-i", "delete", "coordinator", "account=optics", "names=herdu2")
    assert r.rc == 1 and r.out.endswith(" Nothing removed\n"), r
    ok(cluster, "delete", "account", "optics", user="herdu1")


def test_operator_and_administrator(cluster, users):
    ok(cluster, "modify", "user", "herdu2", "set", "adminlevel=operator")
    try:
        ok(cluster, "add", "qos", "opqos", user="herdu2")
        ok(cluster, "delete", "qos", "opqos", user="herdu2")
        # operators make operators, not administrators
        refused(cluster, "modify", "user", "herdu1", "set", "adminlevel=administrator",
                user="herdu2", says="Access/permission denied")
        # an Administrator is an administrator of the controller too
        r = cluster.run(["scontrol", "reconfigure"], user="herdu2")
        assert r.rc != 0
        ok(cluster, "modify", "user", "herdu2", "set", "adminlevel=administrator")
        r = cluster.run(["scontrol", "reconfigure"], user="herdu2")
        assert r.rc == 0, r
    finally:
        ok(cluster, "modify", "user", "herdu2", "set", "adminlevel=none")
    r = cluster.run(["scontrol", "reconfigure"], user="herdu2")
    assert r.rc != 0


def test_delete_with_jobs_refused(cluster, users):
    ok(cluster, "add", "account", "busy")
    ok(cluster, "add", "user", "herdu1", "account=busy")
    job = cluster.sbatch("-A", "busy", "-H", "--wrap", "true", user="herdu1")
    cl = cluster.name
    r = mgr(cluster, "-i", "delete", "account", "busy")
    assert r.rc == 1
    assert r.err == (" Error with request: Job(s) active, cancel job(s) before remove\n"
                     f"  JobID = {job:<10} C = {cl:<10} A = busy       U = herdu1   \n")
    r = mgr(cluster, "-i", "delete", "user", "herdu1", "where", "account=busy")
    assert r.rc == 1 and "Job(s) active" in r.err
    r = mgr(cluster, "-i", "delete", "user", "herdu1")
    assert r.rc == 1 and f"JobID = {job:<10}" in r.err
    assert rows(cluster, "assoc", "account=busy", "format=user") == [[""], ["herdu1"]]
    assert cluster.run(["scancel", str(job)]).rc == 0
    cluster.wait_state(job, ("CANCELLED",))
    out = ok(cluster, "delete", "account", "busy")
    assert out == " Deleting accounts...\n  busy\n"
    assert rows(cluster, "assoc", "account=busy") == []
    assert rows(cluster, "account", "busy") == []
    # the account with sub-accounts is not deleted from under them
    refused(cluster, "delete", "account", "physics", says="has sub-account 'chem'")


def test_partitions_and_several_names(cluster, users):
    cl = cluster.name
    out = ok(cluster, "add", "account", "p1,p2", "parent=lab")
    assert out.startswith(" Adding Account(s)\n  p1\n  p2\n")
    out = ok(cluster, "add", "user", "herdu1", "account=p1,p2", "partition=debug", "maxjobs=2")
    assert (f"  U = herdu1    A = p1         C = {cl:<10} P = debug     \n"
            f"  U = herdu1    A = p2         C = {cl:<10} P = debug     \n") in out
    assert rows(cluster, "assoc", "user=herdu1", "partition=debug",
                "format=account,user,partition,maxjobs") == \
        [["p1", "herdu1", "debug", "2"], ["p2", "herdu1", "debug", "2"]]
    # a partition's association and the plain one are two
    ok(cluster, "add", "user", "herdu1", "account=p1")
    assert rows(cluster, "assoc", "account=p1", "user=herdu1", "format=partition") == \
        [[""], ["debug"]]
    ok(cluster, "modify", "user", "herdu1", "where", "account=p1", "partition=debug", "set",
       "maxjobs=9")
    assert rows(cluster, "assoc", "account=p1", "user=herdu1", "format=partition,maxjobs") == \
        [["", ""], ["debug", "9"]]
    refused(cluster, "add", "user", "herdu1", "account=p1", "partition=nosuch",
            says="Partition 'nosuch' doesn't exist")
    job = cluster.sbatch("-A", "p2", "-p", "debug", "--qos=low", "-H", "--wrap", "true",
                         user="herdu1")
    r = mgr(cluster, "-i", "delete", "user", "herdu1", "where", "account=p2", "partition=debug")
    assert r.rc == 1 and f"JobID = {job:<10}" in r.err
    r = mgr(cluster, "-i", "delete", "qos", "low")
    assert r.rc == 1 and f"JobID = {job:<10}" in r.err
    assert cluster.run(["scancel", str(job)]).rc == 0
    cluster.wait_state(job, ("CANCELLED",))
    ok(cluster, "delete", "user", "herdu1", "where", "account=p1,p2")
    ok(cluster, "delete", "account", "p1,p2")
    assert rows(cluster, "account", "p1,p2") == []


def test_default_account_guard(cluster, users):
    """Slurm refuses to take away a user's default account; a user left
    with no association at all goes with its last one."""
    cl = cluster.name
    assert rows(cluster, "user", "herdu2", "format=defaultaccount") == [["lab"]]
    r = mgr(cluster, "-i", "delete", "account", "lab")
    assert r.rc == 1
    assert r.err == (" Users listed below have these as their Default Accounts.\n"
                     f"C = {cl:<10} A = {'lab':<20} U = herdu2   \n"
                     " Please either remove the accounts listed above from list and resubmit,\n"
                     " or change these users' default accounts to remove the account(s).\n"
                     " Changes Discarded\n")
    r = mgr(cluster, "-i", "delete", "user", "herdu2", "where", "account=lab")
    assert r.rc == 1
    assert r.out == f" Deleting user associations...\n  C = {cl:<10} A = {'lab':<20} U = herdu2   \n"
    assert r.err == (" You must change the default account of these users or remove the users "
                     "completely from the affected clusters to allow these changes.\n"
                     " Changes Discarded\n")
    assert rows(cluster, "assoc", "user=herdu2", "account=lab", "format=account") == [["lab"]]
    out = ok(cluster, "add", "account", "solo")
    assert out == (" Adding Account(s)\n  solo\n Settings\n  Description     = Account Name\n"
                   "  Organization    = Parent/Account Name\n Associations\n"
                   f"  A = solo       C = {cl:<10}\n")
    ok(cluster, "add", "user", "ghost", "account=solo")
    out = ok(cluster, "delete", "user", "ghost", "where", "account=solo")
    assert out == (f" Deleting user associations...\n  C = {cl:<10} A = {'solo':<20} U = ghost    \n"
                   " Deleting users (No Associations)...\n  ghost\n")
    assert rows(cluster, "user", "ghost") == []
    r = mgr(cluster, "-i", "delete", "account")
    assert r.rc == 1 and "No conditions given to remove, not executing." in r.err
    refused(cluster, "delete", "account", "root", says="You are not allowed to remove the root account")
    ok(cluster, "delete", "account", "solo")


def test_unknown_login_question(cluster):
    """Without -i Slurm asks before adding a user the system has no uid for."""
    r = mgr(cluster, "add", "user", "nologin1", "account=physics", input="n\n")
    assert r.rc == 1
    assert r.out == ("There is no uid for user 'nologin1'\nAre you sure you want to continue? "
                     "(You have 30 seconds to decide)\n(N/y): \n")
    assert rows(cluster, "user", "nologin1") == []
    r = mgr(cluster, "add", "user", "nologin1", "account=physics", input="y\ny\n")
    assert r.rc == 0 and r.out.count("(N/y): ") == 2, r
    assert rows(cluster, "user", "nologin1", "format=user") == [["nologin1"]]
    ok(cluster, "delete", "user", "nologin1")


def test_commit_question(cluster):
    """Without -i: Slurm's question, answered from stdin (even a pipe)."""
    question = "Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): \n"
    r = mgr(cluster, "add", "account", "asked", input="n\n")
    assert r.rc == 0 and r.out.endswith(question + " Changes Discarded\n"), r
    assert rows(cluster, "account", "asked") == []
    r = mgr(cluster, "add", "account", "asked", input="")
    assert r.rc == 0 and r.out.endswith(question + " Changes Discarded\n"), r
    assert rows(cluster, "account", "asked") == []
    # one character is the answer: a newline after a wrong one is a no
    r = mgr(cluster, "add", "account", "asked", input="x\ny\n")
    assert r.rc == 0 and r.out.endswith(question + "Y or N please\n(N/y): \n Changes Discarded\n"), r
    assert rows(cluster, "account", "asked") == []
    r = mgr(cluster, "add", "account", "asked", input="xy\n")
    assert r.rc == 0 and r.out.endswith(question + "Y or N please\n(N/y): \n"), r
    assert rows(cluster, "account", "asked", "format=account") == [["asked"]]
    r = mgr(cluster, "delete", "account", "asked", input="y\n")
    assert r.rc == 0 and r.out.startswith(" Deleting accounts...\n  asked\n"), r
    assert rows(cluster, "account", "asked") == []


def test_commands_from_stdin(cluster):
    """sacctmgr without a command reads commands from stdin, one a line; the
    commit question's answer is the next line; quit ends it."""
    script = ("list account physics format=account -P -n\n"
              "add account 'from stdin' Description=\"two words\"\n"
              "y\n"
              "\n"
              "# a comment\n"
              "list account 'from stdin' format=account,descr\n"
              "delete account nosuch\n"
              "quit\n"
              "add account never\n")
    r = mgr(cluster, input=script)
    assert r.rc == 1, r   # the delete found nothing
    assert r.out.startswith("physics\n Adding Account(s)\n  from stdin\n")
    assert "(N/y): " in r.out
    assert "from stdin" in r.out.split("(N/y): ", 1)[1]
    assert " Nothing deleted\n" in r.out
    assert rows(cluster, "account", "from stdin", "format=descr") == [["two words"]]
    assert rows(cluster, "account", "never") == []
    ok(cluster, "delete", "account", "from stdin")


def test_bad_input(cluster):
    refused(cluster, "add", "account", "x", "GrpTRES=foo=1", says="Invalid TRES name 'foo'")
    refused(cluster, "add", "account", "x", "GrpTRES=cpu=lots", says="Invalid TRES count 'lots'")
    refused(cluster, "add", "account", "x", "MaxJobs=many", says="Invalid value 'many' for MaxJobs")
    refused(cluster, "add", "account", "x", "MaxJobs=-5", says="Invalid value '-5' for MaxJobs")
    refused(cluster, "add", "account", "x", "MaxWall=soon", says="Invalid value 'soon' for MaxWall")
    refused(cluster, "add", "account", "x", "Fairshare=lots", says="for Fairshare")
    refused(cluster, "add", "account", "x", "qos=nosuch", says="Invalid QOS name 'nosuch'")
    refused(cluster, "add", "account", "x", "parent=nosuch", says="Parent account 'nosuch'")
    refused(cluster, "add", "account", "x", "flags=Bogus", says="Invalid account flag")
    refused(cluster, "add", "account", "x", "Colour=red", says="Unknown option: Colour=red")
    refused(cluster, "modify", "account", "physics", "set", "adminlevel=operator",
            says="Unknown account option: adminlevel")
    refused(cluster, "frobnicate", "account", says="Invalid command: frobnicate")
    refused(cluster, "list", "widgets", says="Unknown entity: widgets")
    refused(cluster, "add", "tres", "x", says="TRES can only be listed")
    refused(cluster, "add", "account", "bad\x1fname", says="control characters are not allowed")
    refused(cluster, "add", "user", "bad\tuser", "account=physics",
            says="control characters are not allowed")
    assert rows(cluster, "account", "x") == []


HOSTILE = ["q'uo\"te", "semi;colon", "ünïcødé-名前", "back\\slash:colon", "a" * 10240]


def test_hostile_names_round_trip(cluster):
    descr = "it's \"quoted\"; with | pipes, ünïcødé and \\t \\n " + "d" * 10240
    org = "org; 'o' \"rg\" " + "o" * 10240
    for name in HOSTILE:
        ok(cluster, "add", "account", name, f"Description={descr}", f"Organization={org}")
    got = {f[0]: f for f in rows(cluster, "account", "format=account,descr,org")}
    for name in HOSTILE:
        # -P splits on '|': the description holds one
        assert got[name][0] == name
        assert "|".join(got[name][1:]) == descr + "|" + org
    ok(cluster, "add", "user", "herdu2", "account=" + HOSTILE[0])
    assert rows(cluster, "assoc", "user=herdu2", "account=" + HOSTILE[0],
                "format=account,user") == [[HOSTILE[0], "herdu2"]]


def test_control_characters_refused(cluster, users):
    """No stored name or text field holds a control character: a newline in
    a Description would be a line of its own in the dump file and in every
    -P listing.  Refused by the controller whatever sends it, a file's line
    (its escapes decoded) included."""
    cases = [
        ("add", "account", "cc1", "Description=two\nlines"),
        ("add", "account", "cc1", "Organization=tab\there"),
        ("add", "account", "cc\n1"),
        ("add", "qos", "q\nx"),
        ("add", "cluster", "cl\rx"),
        ("add", "user", "herdu2", "account=physics", "Partition=p\x1b"),
        ("modify", "account", "physics", "set", "Description=x\ny"),
        ("modify", "account", "physics", "set", "Organization=\x7f"),
        ("modify", "qos", "normal", "set", "Description=a\nb"),
    ]
    before = rows(cluster, "account", "format=account,descr,org")
    for args in cases:
        refused(cluster, *args, says="control characters")
    assert rows(cluster, "account", "format=account,descr,org") == before
    names = [r[0] for r in rows(cluster, "qos", "format=name")]
    assert "q" not in names and "x" not in names, names
    cl = cluster.name
    bad = os.path.join(cluster.workdir(), "ctl.cfg")
    with open(bad, "w") as f:
        f.write(f"Cluster - '{cl}'\nParent - 'root'\n"
                "Account - 'cc2':Description='one\\ntwo':Organization='o'\n")
    r = mgr(cluster, "-i", "load", f"file={bad}")
    assert r.rc == 1 and "Line 3: Invalid value for description: control characters" in r.err, r
    assert rows(cluster, "account", "cc2") == []


def test_dump_load_round_trip(cluster, users):
    cl = cluster.name
    path = os.path.join(cluster.workdir(), "dump.cfg")
    r = mgr(cluster, "dump", cl, f"file={path}")
    assert r.rc == 0, r
    assert r.out == f"sacctmgr: Cluster {cl} dumped to {path}\n"
    text = open(path).read()
    lines = [ln for ln in text.splitlines() if not ln.startswith("#")]
    assert lines[0] == f"Cluster - '{cl}':Fairshare=1:QOS='normal'"
    assert lines[1] == "Parent - 'root'"
    assert lines[2] == "User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1"
    assert "Account - 'bio':Description='bio':Organization='bio':Fairshare=1" in lines
    # a coordinator's accounts are on its user lines, as Slurm writes them
    assert any(ln.startswith("User - 'herdu1':DefaultAccount='physics':Coordinator='physics'")
               for ln in lines), lines
    assert "Parent - 'physics'" in lines
    assert "Account - 'q\\'uo\"te':Description=" in text
    before = {e: rows(cluster, e, "format=" + f) for e, f in (
        ("account", "account,descr,org,flags,coordinators"),
        ("assoc", "cluster,account,user,partition,share,grptres,grpjobs,maxjobs,maxsubmit,"
                  "maxwall,maxtres,maxtrespernode,maxtresmins,qos,defqos,parentname"),
        ("user", "user,defaultaccount,admin"))}
    # remove part of the tree (users first: their default accounts go with them)
    ok(cluster, "delete", "user", "herdu2")
    ok(cluster, "delete", "account", "chem")
    for name in HOSTILE:
        ok(cluster, "delete", "account", name)
    assert rows(cluster, "account", "chem") == []
    r = mgr(cluster, "-i", "load", f"file={path}")
    assert r.rc == 0, r
    assert r.out.startswith(f"For cluster {cl}\n Adding Account(s)\n")
    assert "  chem\n" in r.out and " Adding User(s)\n  herdu2\n" in r.out
    after = {e: rows(cluster, e, "format=" + f) for e, f in (
        ("account", "account,descr,org,flags,coordinators"),
        ("assoc", "cluster,account,user,partition,share,grptres,grpjobs,maxjobs,maxsubmit,"
                  "maxwall,maxtres,maxtrespernode,maxtresmins,qos,defqos,parentname"),
        ("user", "user,defaultaccount,admin"))}
    assert after == before
    # the dump of what was loaded is the file itself
    path2 = os.path.join(cluster.workdir(), "dump2.cfg")
    assert mgr(cluster, "dump", cl, f"file={path2}").rc == 0
    assert open(path2).read() == text
    # a bad file is refused whole, saying where
    bad = os.path.join(cluster.workdir(), "bad.cfg")
    with open(bad, "w") as f:
        f.write(f"Cluster - '{cl}'\nParent - 'root'\nAccount - 'newacct'\n"
                "Account - 'other':MaxJobs=lots\n")
    r = mgr(cluster, "-i", "load", f"file={bad}")
    assert r.rc == 1 and "Line 4: Invalid value 'lots' for MaxJobs" in r.err, r
    assert rows(cluster, "account", "newacct") == []
    with open(bad, "w") as f:
        f.write(f"Cluster - '{cl}'\nParent - 'nosuch'\nUser - 'x'\n")
    r = mgr(cluster, "-i", "load", f"file={bad}")
    assert r.rc == 1 and "Line 2: Parent 'nosuch' has not been created" in r.err, r
    with open(bad, "w") as f:
        f.write("this is not a flat file\n")
    r = mgr(cluster, "-i", "load", f"file={bad}")
    assert r.rc == 1 and "line 1: not a flat file line" in r.err, r
    refused(cluster, "load", "file=/nonexistent/x.cfg", says="Unable to read")
    refused(cluster, "load", f"file={path}", "clean", says="load clean is not supported")
    # only administrators dump, operators and administrators load
    refused(cluster, "dump", cl, f"file={path2}", user="herdu2",
            says="Your user does not have sufficient privileges to dump clusters.")
    refused(cluster, "load", f"file={path}", user="herdu2",
            says="Your user does not have sufficient privileges to load files.")


def test_private_data(cluster, users):
    """PrivateData=users,accounts: plain users see their own user record and
    the accounts they belong to; operators see all."""
    with open(cluster.conf) as f:
        saved = f.read()
    try:
        with open(cluster.conf, "a") as f:
            f.write("PrivateData=users,accounts\n")
        assert cluster.run(["scontrol", "reconfigure"]).rc == 0
        assert rows(cluster, "user", "format=user", user="herdu2") == [["herdu2"]]
        accounts = [f[0] for f in rows(cluster, "account", "format=account", user="herdu2")]
        assert accounts == sorted(["lab", "physics", HOSTILE[0]])
        assert {f[0] for f in rows(cluster, "assoc", "format=user", user="herdu2")} <= {"", "herdu2"}
        assert len(rows(cluster, "user", "format=user")) > 1
    finally:
        with open(cluster.conf, "w") as f:
            f.write(saved)
        assert cluster.run(["scontrol", "reconfigure"]).rc == 0
    assert len(rows(cluster, "user", "format=user", user="herdu2")) > 1


def test_restart_keeps_everything(cluster):
    lists = [("account", "format=account,descr,org,flags,coordinators"),
             ("user", "format=user,defaultaccount,admin,coordinatoraccounts"),
             ("qos", "format=name,id,descr,priority,usagefactor,flags,preempt,preemptmode,"
                     "maxtrespu,maxjobspu,maxwall,grptres"),
             ("cluster", "format=cluster,share,qos"),
             ("assoc", "format=id,cluster,account,user,share,grptres,grpjobs,maxjobs,maxwall,"
                       "maxtresmins,qos,defqos,parentname")]
    before = [rows(cluster, *spec) for spec in lists]
    killed = cluster.ctld_pid()
    os.kill(killed, signal.SIGKILL)
    time.sleep(0.5)
    cluster.restart_ctld()
    cluster.wait_until("the restarted controller", cluster.ping_ok, timeout=30)
    assert [rows(cluster, *spec) for spec in lists] == before
    # and new IDs do not reuse old ones
    ok(cluster, "add", "qos", "afterrestart")
    ids = [int(f[1]) for f in rows(cluster, "qos", "format=name,id")]
    assert len(set(ids)) == len(ids)


def test_account_and_qos_names_any_case(cluster, users):
    """Slurm keeps account and QOS names in lower case and matches what a
    user types against them so: sbatch -A TeamA --qos=Normal runs under
    teama and normal (a launcher that writes the account as the user knows
    it must not be refused), and scontrol update Account=TEAMA the same."""
    ok(cluster, "add", "account", "TeamA")
    assert rows(cluster, "account", "teama", "format=account") == [["teama"]]
    ok(cluster, "add", "user", "herdu1", "account=teama")
    try:
        job = cluster.sbatch("-A", "TeamA", "--qos=Normal", "-H", "--wrap", "true",
                             user="herdu1")
        r = cluster.run(["squeue", "-h", "-j", str(job), "-o", "%a %q"])
        assert r.out == "teama normal\n", r
        r = cluster.run(["scontrol", "update", f"JobId={job}", "Account=TEAMA"],
                        user="herdu1")
        assert r.rc == 0, r
        assert "Account=teama " in cluster.run(["scontrol", "show", "job", str(job)]).out
        # the filters match as Slurm's do: -A TEAMA and -q NORMAL find it
        for args in (["-A", "TEAMA"], ["-q", "NORMAL"], ["--account=TeamA"]):
            r = cluster.run(["squeue", "-h", "-o", "%i"] + args)
            assert r.out.split() == [str(job)], (args, r)
        # a partition is matched as typed (Slurm's partitions keep their case)
        assert cluster.run(["squeue", "-h", "-p", "DEBUG"]).out == ""
        assert cluster.run(["scancel", "-A", "TEAMA", "-u", "herdu1"]).rc == 0
        cluster.wait_state(job, ("CANCELLED",))
        # sacct -A and sreport Accounts= lower what they are given too
        done = cluster.sbatch("-A", "teama", "--wrap", "true", user="herdu1")
        cluster.wait_state(done, ("COMPLETED",))
        r = cluster.run(["sacct", "-X", "-n", "-A", "TeamA", "-o", "jobid"])
        assert sorted(r.out.split(), key=int) == [str(job), str(done)], r
        # sacctmgr lowers an association's partition, as Slurm's does
        ok(cluster, "add", "user", "herdu1", "account=teama", "partition=DEBUG")
        assert ["herdu1", "teama", "debug"] in rows(
            cluster, "assoc", "where", "user=herdu1", "format=user,account,partition")
    finally:
        ok(cluster, "delete", "user", "herdu1", "where", "account=teama")
        ok(cluster, "delete", "account", "teama")

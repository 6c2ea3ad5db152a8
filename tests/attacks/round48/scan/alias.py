import argparse
NS = argparse.Namespace
class Meta(type):
    pass
def yes(cls, obj):
    return True
u = "_" * 2
NS.__init__(Meta, **{u + "instancecheck" + u: yes})
p = argparse.ArgumentParser()
sd = p.set_defaults
sd(**{"x": 1})

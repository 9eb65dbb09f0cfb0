/* A Dynamo worker's KV role, decided the way Dynamo decides it (issue 38
 * point 1): the DGD component's type and sub-type when they say prefill or
 * decode, else the worker's own command.  Dynamo's workers take their role
 * from `--disaggregation-mode` (components/src/dynamo/common/constants.py
 * DisaggregationMode: agg, prefill, decode, encode; read by
 * components/src/dynamo/{vllm,sglang,trtllm} args parsing); the operator's
 * component type is only a label, and recipes write `type: worker` (v1beta1),
 * `componentType: worker` without a sub-type or the older `componentType:
 * main` with the role in the command.  A leaf: no I/O. */
#ifndef MODEL_ROLE_H
#define MODEL_ROLE_H

/* "prefill" or "decode" as a command line (command and args joined by
 * blanks or newlines) asks for it, or NULL when it names neither, names
 * both (one script starting several workers), or names one through a
 * variable.  Shell comments (an unquoted `#` starting a word, to the end
 * of its line) are not read: a commented-out flag is no flag. */
const char *model_role_from_args(const char *args);

/* 1 when the command runs one of Dynamo's engine workers
 * (dynamo.vllm, dynamo.sglang, dynamo.trtllm). */
int model_args_engine(const char *args);

/* The tensor-parallel size tp (-1 unknown) of a worker running args: an
 * engine worker whose command names no tensor-parallel flag or key runs
 * its engine's default, 1 (vLLM EngineArgs.tensor_parallel_size, SGLang
 * ServerArgs.tp_size, TensorRT-LLM tensor_parallel_size); -1 otherwise
 * (a flag through a variable, or no engine known). */
long model_tp_default(const char *args, long tp);

/* The role of a component of type (componentType / v1beta1 type, NULL or
 * "" when untyped) and sub-type (subComponentType, NULL when none) whose
 * main container runs args: "prefill"/"decode" from the type or sub-type,
 * else from the command; a worker or `main` component running an engine
 * with no role in its command is "worker" (shown as such, never dropped);
 * `main` running no engine stays "main"; other types are returned as they
 * are, and an untyped one with no role in its command is "-". */
const char *model_role(const char *type, const char *sub, const char *args);

/* A copy of shell text with its comments blanked out (caller frees):
 * what `sh -c` would read as words.  Quotes are kept. */
char *model_shell_uncomment(const char *text);

#endif

"""Chat templates used by the tests (shapes copied from the real models' templates)."""

# SmolLM2-135M-Instruct's template, as its GGUF carries it: it ignores ``tools``.
SMOLLM2 = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}"
)

# The parts of Qwen3's template that matter here: a native tool block, tool results as
# <tool_response> user turns, and the empty think block when enable_thinking is false.
QWEN3_LIKE = """{%- if tools %}<|im_start|>system
{% if messages[0].role == 'system' %}{{ messages[0].content }}

{% endif %}# Tools

<tools>
{%- for tool in tools %}
{{ tool | tojson }}
{%- endfor %}
</tools>

For each function call, return a json object within <tool_call></tool_call> XML tags.<|im_end|>
{% elif messages[0].role == 'system' %}<|im_start|>system
{{ messages[0].content }}<|im_end|>
{% endif %}
{%- for message in messages %}
{%- if message.role == 'tool' %}<|im_start|>user
<tool_response>
{{ message.content }}
</tool_response><|im_end|>
{% elif message.role != 'system' %}<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% if enable_thinking is defined and enable_thinking is false %}<think>

</think>

{% endif %}
{%- endif %}"""

# A strict template that refuses any role but system/user/assistant (as some Mistral and
# Gemma templates do).
STRICT_ROLES = """{%- for message in messages %}
{%- if message.role not in ['system', 'user', 'assistant'] %}
{{- raise_exception('Conversation roles must be system, user or assistant') }}
{%- endif %}<<{{ message.role }}>>{{ message.content }}
{% endfor %}{% if add_generation_prompt %}<<assistant>>{% endif %}"""

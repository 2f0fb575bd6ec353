"""An agent that answers policy questions only from the corpus.

`policy_search` is a tool like the others, but its result changes how the run may end: when
the agent searched the policies and no passage reached the threshold, whatever the model
then writes is not grounded in anything. The agent does not pass it on; it says it does not
know (a `refusal` step). Refusing is a decision of the code, not a hope about the model.
"""

from __future__ import annotations

from stages.s01_model.model import Message, Model, Name
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.tools import Tool, ToolBox
from stages.s03_loop.agent import DEFAULT_MAX_STEPS, Agent, Step, Stop
from stages.s04_retrieval.retrieval import THRESHOLD, Passage, score, search

REFUSAL = (
    "I don't know: our policies don't cover that, and I won't guess. "
    "A colleague from support can answer it."
)


class Grounding(Name):
    REFUSAL = "refusal"  # the corpus had nothing above the threshold, so the agent declined


class GroundedAgent(Agent):
    """The stage-3 agent plus policy search, and a refusal when the search came up empty."""

    def __init__(
        self,
        model: Model,
        tools: ToolBox,
        policies: list[Passage],
        *,
        threshold: float = THRESHOLD,
        max_steps: int = DEFAULT_MAX_STEPS,
        trace: JsonlTrace | None = None,
    ) -> None:
        search_tool = Tool(
            "policy_search", "Search the shop's policies.", {"query": str}, self._search
        )
        super().__init__(model, tools.with_tool(search_tool), max_steps=max_steps, trace=trace)
        self.policies = policies
        self.threshold = threshold
        self.searches: list[float] = []  # best score of each policy search in this run

    def start(self, task: str) -> list[Message]:
        self.searches = []
        return super().start(task)

    def _search(self, query: str) -> str:
        best = max((score(query, passage) for passage in self.policies), default=0.0)
        self.searches.append(best)
        hits = search(query, self.policies, self.threshold)
        if not hits:
            return f"no policy passage scored {self.threshold} or more (best {best:.2f})"
        top = hits[0]
        return f"[{top.passage.id}, score {top.score:.2f}] {top.passage.text}"

    def conclude(self, text: str) -> Step:
        step = super().conclude(text)
        searched_in_vain = bool(self.searches) and max(self.searches) < self.threshold
        if step.kind == Stop.ANSWER and searched_in_vain:
            return Step(Grounding.REFUSAL, text=REFUSAL)
        return step

    def record(self, step: Step) -> None:
        # Stage 4's trace adds the best retrieval score to policy searches; still no run key.
        top = self.searches[-1] if step.tool == "policy_search" and self.searches else None
        self.trace.write(
            {
                "step": len(self.steps) - 1,
                "kind": step.kind,
                "tool": step.tool,
                "text": step.text,
                "top_score": top,
            }
        )

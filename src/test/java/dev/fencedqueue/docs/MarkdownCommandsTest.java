package dev.fencedqueue.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * How the documentation's commands are read ({@link MarkdownCommands}), and that every one of them is either run by
 * {@link DocumentedCommandsTest} (or another subclass of {@link DocumentedCommandsRunner}) or names the test that runs it.
 */
class MarkdownCommandsTest {

    @Test
    void readsCommandsWithContinuationsQuotedLineBreaksOutputsAndTrailingCommentsWithQuotesInThem() {
        String page = """
                Start one with `curl -N -H "Last-Event-ID: <last id>" http://localhost:3000/research/stream/<jobId>`.

                ```bash
                # with fq.llm.protocol=openai
                curl -s -X POST http://localhost:3000/research/start \\
                  -H "Content-Type: application/json" \\
                  -d '{"query": "AI trends"}'
                # {"jobId":"research-6f1c..."}

                curl -s -u admin:admin -X POST localhost:3000/admin/flows -d '{
                  "queue": "deep-research"}'
                curl -N localhost:8082/research/stream/<jobId> &     # follow from B
                FQ="-Dfq.a=1 -Dfq.b=2" java $FQ -jar app.jar
                curl -s localhost:3000/admin/llm/budgets   # (the fleet's circuit opens)
                curl -s -X DELETE localhost:3000/simulator/provider/outage   # or end it
                ```

                ```java
                curl("not a command");
                ```
                """;

        List<DocumentedCommand> commands = MarkdownCommands.of("page.md", page);

        assertThat(commands).extracting(DocumentedCommand::line).containsExactly(1, 5, 10, 12, 13, 14, 15);
        assertThat(commands.get(0).text()).startsWith("curl -N -H").endsWith("<jobId>");
        assertThat(commands.get(1).text()).endsWith("-d '{\"query\": \"AI trends\"}'").contains("\\\n  -H");
        assertThat(commands.get(1).output()).containsExactly("{\"jobId\":\"research-6f1c...\"}");
        assertThat(DocumentedCommandsRunner.blockSettings(commands.get(1))).isEqualTo(Map.of("fq.llm.protocol", "openai"));
        assertThat(DocumentedCommandsRunner.blockSettings(commands.get(0))).isEmpty();
        assertThat(commands.get(2).text()).endsWith("\"queue\": \"deep-research\"}'");
        assertThat(commands.get(3).text()).isEqualTo("curl -N localhost:8082/research/stream/<jobId> &");
        assertThat(commands.get(4).program()).isEqualTo("java");
        assertThat(commands.get(5).text()).as("a quote in a comment opens nothing: the next line is a command of its own")
                .isEqualTo("curl -s localhost:3000/admin/llm/budgets");
        assertThat(commands.get(6).text()).isEqualTo("curl -s -X DELETE localhost:3000/simulator/provider/outage");
        assertThat(MarkdownCommands.words(commands.get(1).text()))
                .containsExactly("curl", "-s", "-X", "POST", "http://localhost:3000/research/start", "-H",
                        "Content-Type: application/json", "-d", "{\"query\": \"AI trends\"}");
    }

    @Test
    void everyCommandOfTheDocumentationIsRunOrNamesWhereItIsRun() throws IOException {
        List<DocumentedCommand> commands = DocumentedCommandsRunner.documentedCommands();
        List<String> unknown = new ArrayList<>();
        for (DocumentedCommand command : commands) {
            String program = command.program();
            if (!program.equals("curl") && !DocumentedCommandsRunner.RUN_ELSEWHERE.containsKey(program)) {
                unknown.add(command + " (program `" + program + "`)");
            }
            if (program.equals("curl")
                    && !DocumentedCommandsRunner.RUNNERS.contains(DocumentedCommandsRunner.blockSettings(command))) {
                unknown.add(command + ": no runner has the settings " + DocumentedCommandsRunner.blockSettings(command));
            }
        }
        assertThat(commands).filteredOn(command -> command.program().equals("curl")).as("curl commands").hasSizeGreaterThan(20);
        assertThat(unknown).as("commands neither run by DocumentedCommandsTest nor named in RUN_ELSEWHERE with the "
                + "test that runs them").isEmpty();
    }
}

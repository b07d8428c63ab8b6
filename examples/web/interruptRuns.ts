import { lastValueFrom, type Observable } from 'rxjs';
import { z } from 'zod';
import { askForInput, defineAgent, invoke$, type RunContext } from '@rxagents/core';
import { aiSdkAgent } from '@rxagents/ai-sdk';
import { tool } from 'ai';
import { invoiceModel } from './invoiceModel';

/** Who is invoiced when the page's topic field is empty. */
export const defaultCustomer = 'Ada Lovelace';
/** Where the trip goes when the page's topic field is empty. */
export const defaultDestination = 'Lisbon';

/** What the invoice tool does once a person approved it: in the demo, it only says what it sent. */
function sendInvoice(args: { readonly customer: string; readonly amount: number; readonly currency: string }): string {
  return `Invoice sent to ${args.customer}: ${args.amount} ${args.currency}`;
}

/**
 * A billing agent on the AI SDK: its model (scripted, see `invoiceModel`) calls the `send_invoice` tool,
 * which needs a person's approval. The call waits for it as an approval interrupt of the run; approved,
 * the tool runs and the model answers with its result; refused, the model is told why.
 */
const billing = aiSdkAgent({
  id: 'billing',
  model: invoiceModel(),
  tools: {
    send_invoice: tool({
      description: 'Send an invoice to a customer',
      inputSchema: z.object({ customer: z.string(), amount: z.number(), currency: z.string() }),
      needsApproval: true,
      execute: async (args) => sendInvoice(args),
    }),
  },
});

/** A scripted planner: it asks a person how long the trip lasts (a whole number of days, checked on the server) and plans it. */
const planner = defineAgent('planner', async (destination, { run }) => {
  const days = await lastValueFrom(askForInput(run, `How many days should the trip to ${destination} last? (1 to 14)`, { schema: z.number().int().min(1).max(14) }));
  return `A ${days}-day plan for ${destination} is ready.`;
});

/** The run names of the scenes that wait for a person, by scene. */
export const interruptRunNames = { approval: 'send-invoice', input: 'plan-trip' } as const;

/**
 * The durable runs of the demo by name, for the run registry's `runs` option: a restarted server
 * resumes an unfinished one of these from the store, and its open question reopens under the same id.
 */
export const interruptRuns: ReadonlyMap<string, (input: string) => (run: RunContext) => Observable<unknown>> = new Map([
  [interruptRunNames.approval, (customer: string) => (run: RunContext) => invoke$(billing, customer, { run })],
  [interruptRunNames.input, (destination: string) => (run: RunContext) => invoke$(planner, destination, { run })],
]);

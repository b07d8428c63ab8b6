import { lastValueFrom, type Observable } from 'rxjs';
import { z } from 'zod';
import { askForApproval, askForInput, defineAgent, invoke$, type RunContext } from '@rxagents/core';

/** Who is invoiced when the page's topic field is empty. */
export const defaultCustomer = 'Ada Lovelace';
/** Where the trip goes when the page's topic field is empty. */
export const defaultDestination = 'Lisbon';

/** What the invoice tool does once a person approved it: in the demo, it only says what it sent. */
function sendInvoice(args: { readonly customer: string; readonly amount: number; readonly currency: string }): string {
  return `Invoice sent to ${args.customer}: ${args.amount} ${args.currency}`;
}

/**
 * A scripted billing agent: it would send an invoice, asks a person to approve the `send_invoice` call
 * with its arguments, runs the tool only when approved, and replies with the tool's result (or why not).
 */
const billing = defineAgent('billing', async (customer, { run }) => {
  const args = { customer, amount: 1250, currency: 'EUR' };
  const decision = await lastValueFrom(askForApproval(run!, 'send_invoice', args, { question: `Send an invoice of ${args.amount} ${args.currency} to ${customer}?` }));
  return decision.approved ? `send_invoice: ${sendInvoice(args)}` : `Invoice not sent: ${decision.reason ?? 'refused'}`;
});

/** A scripted planner: it asks a person how long the trip lasts (a whole number of days, checked on the server) and plans it. */
const planner = defineAgent('planner', async (destination, { run }) => {
  const days = await lastValueFrom(askForInput(run!, `How many days should the trip to ${destination} last? (1 to 14)`, { schema: z.number().int().min(1).max(14) }));
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

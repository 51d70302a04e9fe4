export {
  calendarDateIn,
  escapeMrkdwn,
  formatEstimatedDelivery,
  formatInstant,
  shown,
  slackLink,
  stateLabel,
} from "./format.ts";
export { updatePresenter } from "./presenter.ts";
export {
  type Block,
  type RenderedMessage,
  type RenderOptions,
  renderEventReply,
} from "./replies.ts";
export { STATUS_LINE_BLOCK_ID, statusLineBlock, statusLineText } from "./status-line.ts";
